//! The audit trail in the repository: the database is read from the audit branch when a run
//! starts and committed back when it ends, through the API or with git. Runs that race each
//! other never lose a record: a commit that lost the race re-reads the branch, re-applies its
//! own run (idempotency keys make that exact) and tries again.

pub mod api;
pub mod git;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use api::{Change, Landed};

use crate::config::{AuditConfig, CommitMode};
use crate::exit_codes;
use crate::gate::GateRun;
use crate::github::{ApiError, Client, GithubError, Repo, Retry, Session, Token};
use crate::store::{
    Baseline, Segment, Store, StoreError, check_integrity, segment_file_name, sha256,
};

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("audit branch {branch}: {source}")]
    Api {
        branch: String,
        #[source]
        source: ApiError,
    },
    #[error("audit branch {branch}: {source}")]
    Git {
        branch: String,
        #[source]
        source: git::GitAuditError,
    },
    #[error(
        "audit branch {branch}: other runs kept moving it; gave up after {attempts} attempts; the run's results are kept in {}",
        kept.display()
    )]
    Exhausted {
        branch: String,
        attempts: u32,
        kept: PathBuf,
    },
    #[error(
        "audit branch {branch} has no database at its head {head}: refusing to start a new trail on top of it"
    )]
    NoDatabase { branch: String, head: String },
    /// The trail could not be committed; the run's results wait in a file.
    #[error("{message}; the run's results are kept in {}", kept.display())]
    Unrecorded { message: String, kept: PathBuf },
    #[error(
        "audit branch {branch}: other runs kept moving it; gave up after {attempts} attempts: re-run this job to record the review"
    )]
    ReviewLost { branch: String, attempts: u32 },
    #[error(
        "audit branch {branch}: runs kept moving it; gave up compacting after {attempts} attempts (the branch and its tags are as they were)"
    )]
    CompactRaced { branch: String, attempts: u32 },
    #[error("audit branch {branch}: {source}")]
    CompactGit {
        branch: String,
        #[source]
        source: git::GitAuditError,
    },
    #[error("audit branch {branch} is not on remote {remote}: nothing to compact")]
    NoBranch { branch: String, remote: String },
    #[error(
        "audit branch {branch} at {head}: the chain is broken ({first}); refusing to compact: the branch's history is the evidence of who changed it"
    )]
    Broken {
        branch: String,
        head: String,
        first: String,
    },
    /// The working copy is not the branch's file plus this run's rows: nothing is committed.
    #[error("audit branch {branch}: {message}; refusing to commit")]
    Tampered { branch: String, message: String },
    /// What the branch holds at its head is not a SQLite database (a JSON answer to the raw
    /// read, a file replaced by hand): it is never written as the working copy.
    #[error(
        "audit branch {branch} at {head}: {path} is not a SQLite database (it starts with {start}); refusing to use it"
    )]
    NotDatabase {
        branch: String,
        head: String,
        path: String,
        start: String,
    },
    #[error("audit database {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file or directory of the run's own: a scratch copy, the kept results document.
    #[error("failed to {action} {}: {source}", path.display())]
    File {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The working copy, or a copy of the branch's file, as a database.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The API client the branch is read and committed through.
    #[error(transparent)]
    Github(#[from] GithubError),
}

impl AuditError {
    fn file(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::File {
            action,
            path: path.into(),
            source,
        }
    }

    /// The process's exit code for this error (see [`crate::exit_codes`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::NoBranch { .. } | Self::Github(GithubError::Unavailable(_)) => exit_codes::USAGE,
            Self::Broken { .. } => exit_codes::CORRECTION_NEEDED,
            _ => exit_codes::ERROR,
        }
    }

    pub fn help(&self) -> Option<&str> {
        match self {
            Self::Store(err) => err.help(),
            Self::Github(err) => err.help(),
            Self::Tampered { .. } => Some(
                "something other than this run (a test suite, a script) changed the working copy of the audit database; the branch is as it was: run the gate again once that is fixed, and check `skillgate audit verify` on the branch's file",
            ),
            Self::NotDatabase { .. } => Some(
                "restore the file from an earlier commit of the audit branch (`skillgate audit verify --db FILE` checks a copy)",
            ),
            Self::Exhausted { .. } | Self::Unrecorded { .. } => Some(
                "upload that file as an artifact, and run `skillgate publish --results FILE` with it to record the run",
            ),
            Self::CompactGit { .. } => Some(
                "compact pushes with the checkout's git credentials (actions/checkout keeps them unless `persist-credentials: false`) and must be allowed to force-push the branch; a tag of that name at another commit stops it: pass --tag",
            ),
            Self::CompactRaced { .. } => {
                Some("compact when no pull request jobs run, e.g. on a nightly schedule")
            }
            Self::Broken { .. } => Some(
                "run `skillgate audit verify --db FILE` on the branch's database, and compare its commits to find the change",
            ),
            Self::NoBranch { .. } => Some(
                "check `[audit] branch`, and that the checkout's remote is the repository whose trail this is",
            ),
            Self::NoDatabase { .. } => Some(
                "check `[audit] db` against the branch's files; to start over, delete the branch",
            ),
            Self::Git { .. } => Some(
                "`[audit] commit = \"git\"` pushes with the checkout's credentials: keep them (actions/checkout `persist-credentials`), or use commit = \"api\"",
            ),
            Self::Api {
                source: ApiError::Status { status: 403, .. },
                ..
            } => Some("the token needs `contents: write` to commit the audit branch"),
            _ => None,
        }
    }
}

enum Backend {
    Api(Box<ApiBackend>),
    Git(git::GitBranch),
}

struct ApiBackend {
    runtime: tokio::runtime::Runtime,
    client: Client,
    repo: Repo,
    branch: String,
}

impl Backend {
    fn branch(&self) -> &str {
        match self {
            Self::Api(api) => &api.branch,
            Self::Git(g) => &g.name,
        }
    }

    fn git_err(&self, source: git::GitAuditError) -> AuditError {
        AuditError::Git {
            branch: self.branch().to_owned(),
            source,
        }
    }

    fn head(&self) -> Result<Option<String>, AuditError> {
        match self {
            Self::Api(a) => a.run(|b, c| Box::pin(b.head(c))),
            Self::Git(g) => g.head().map_err(|e| self.git_err(e)),
        }
    }

    /// The files at `paths` of `commit`, in order (`None`: the commit has no such file).
    fn read(&self, commit: &str, paths: &[String]) -> Result<Vec<Option<Vec<u8>>>, AuditError> {
        match self {
            Self::Api(a) => paths
                .iter()
                .map(|path| a.run(|b, c| Box::pin(b.read(c, commit, path))))
                .collect(),
            Self::Git(g) => g.read(commit, paths).map_err(|e| self.git_err(e)),
        }
    }

    fn commit(
        &self,
        parent: Option<&str>,
        changes: &[Change],
        message: &str,
    ) -> Result<Landed, AuditError> {
        match self {
            Self::Api(a) => a.run(|b, c| Box::pin(b.commit(c, parent, changes, message))),
            Self::Git(g) => g
                .commit(parent, changes, message)
                .map_err(|e| self.git_err(e)),
        }
    }
}

impl ApiBackend {
    /// One request of the branch's, on this backend's runtime.
    fn run<'a, T>(
        &'a self,
        request: impl FnOnce(
            api::Branch<'a>,
            &'a Client,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<T, ApiError>> + 'a>,
        >,
    ) -> Result<T, AuditError> {
        let branch = api::Branch {
            repo: &self.repo,
            name: &self.branch,
        };
        self.runtime
            .block_on(request(branch, &self.client))
            .map_err(|source| AuditError::Api {
                branch: self.branch.clone(),
                source,
            })
    }
}

/// Where the trail's files are on the branch, from `[audit] db`: the registry and the
/// `trail/` directory of segments beside it, and the single file trails were before segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// `[audit] db`: the single file of a trail written before segments (converted on the
    /// first commit of this version).
    pub single: String,
    /// `registry.db` beside it.
    pub registry: String,
    /// `trail` beside it: `trail/000001.db`, …
    pub trail: String,
}

impl Layout {
    pub fn of(db: &str) -> Self {
        let dir = db
            .rsplit_once('/')
            .map(|(dir, _)| format!("{dir}/"))
            .unwrap_or_default();
        Self {
            single: db.to_owned(),
            registry: format!("{dir}registry.db"),
            trail: format!("{dir}trail"),
        }
    }

    /// The path of segment `seq` on the branch.
    pub fn segment(&self, seq: i64) -> String {
        format!("{}/{}", self.trail, segment_file_name(seq))
    }
}

/// Which rows of a segmented trail a run reads, besides the registry. Whatever it asks, the
/// newest segment that holds rows is read: the chain goes on from its last row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reads {
    /// The registry alone (templates, the schema): no segment. A single-file trail is read
    /// whole.
    Registry,
    /// The newest segment, and each sealed segment whose newest row is at or after this moment
    /// (RFC 3339; `None`: now), less an hour for clocks that disagree: any segment that can
    /// hold a row written since then. A run looks up its own idempotency keys in what it reads,
    /// so it passes the time it started (for a results document published later, its run's
    /// start: a document of a pull request's run is read by the pull request's window). A
    /// moment in the future counts as now.
    Since(Option<String>),
    /// Every segment that can hold a row of a pull request opened at this moment (RFC 3339,
    /// GitHub's word, not bounded): what a review, or a gate run that reads the reviews of a
    /// head, needs to see every decision and review of it. An unreadable moment reads all.
    PullRequest(String),
    /// Every segment (`audit compact` verifies the whole chain before it squashes history).
    All,
}

impl Reads {
    /// For a pull request GitHub says when it was opened: every segment since
    /// ([`Reads::PullRequest`]); else `otherwise`.
    /// A pull request that does not say when it was opened reads every segment.
    pub fn for_pull(pull: Option<&crate::github::PullRequest>, otherwise: Self) -> Self {
        match pull.map(|p| p.created_at.clone()) {
            Some(Some(opened)) => Self::PullRequest(opened),
            Some(None) => Self::All,
            None => otherwise,
        }
    }
}

/// What the branch held when a run read it.
#[derive(Debug)]
enum Held {
    /// A single database: the trail before segments, or a local one. Committing converts it.
    Single { file: PathBuf, path: String },
    /// The registry and the segments read, each as a file of the run's own (and its path on
    /// the branch).
    Segmented {
        registry: PathBuf,
        segments: Vec<(Segment, PathBuf, String)>,
    },
}

impl Held {
    /// Build a working copy of what was read at `into`.
    fn assemble(&self, into: &Path) -> Result<(), AuditError> {
        match self {
            Self::Single { file, .. } => {
                let bytes =
                    std::fs::read(file).map_err(|err| AuditError::file("read", file, err))?;
                write_private(into, &bytes)
            }
            Self::Segmented { registry, segments } => {
                let bytes = std::fs::read(registry)
                    .map_err(|err| AuditError::file("read", registry, err))?;
                write_private(into, &bytes)?;
                let mut store = Store::open(into)?;
                for (segment, file, path) in segments {
                    // Named by its path on the branch, not the run's copy of it.
                    store.load_segment(segment, file).map_err(|err| match err {
                        StoreError::Segment { name, message, .. } => StoreError::Segment {
                            path: PathBuf::from(path),
                            name,
                            message,
                        },
                        other => other,
                    })?;
                }
                Ok(())
            }
        }
    }
}

/// Bytes a trail moved to and from its branch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    pub fetched: u64,
    pub uploaded: u64,
    /// The largest file of the last commit.
    pub largest: u64,
}

/// This run's copy of the audit database, read from the branch, and the way back to it.
pub struct Trail {
    backend: Backend,
    layout: Layout,
    reads: Reads,
    /// `[audit] segment-size`.
    cap: u64,
    /// The branch head the copy was read at; `None` for a branch not created yet.
    head: Option<String>,
    /// What the branch held at `head` (`None`: no branch yet).
    read: Option<Held>,
    baseline: Baseline,
    /// Made for this run alone (0700, random name): no one else can list or open the copy.
    dir: tempfile::TempDir,
    attempts: u32,
    traffic: Traffic,
}

impl std::fmt::Debug for Trail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trail")
            .field("branch", &self.backend.branch())
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

/// Read, before any suite runs, what git mode needs from the checkout (the remote's URL and the
/// credentials actions/checkout left): a suite can rewrite `.git/config`, and the trail is
/// connected only once every suite has ended.
pub fn pin(config: &AuditConfig, repo_dir: &Path) -> Result<(), AuditError> {
    if config.commit != CommitMode::Git {
        return Ok(());
    }
    git::GitBranch {
        dir: repo_dir.to_path_buf(),
        remote: "origin".to_owned(),
        name: config.branch.clone(),
    }
    .pin()
    .map_err(|source| AuditError::Git {
        branch: config.branch.clone(),
        source,
    })
}

/// Where the branch is: through the API (a session with a token and a repository) or a git
/// remote of the checkout at `repo_dir`; `reads` says which segments the run reads.
pub fn connect(
    config: &AuditConfig,
    session: &Session,
    repo_dir: &Path,
    reads: Reads,
) -> Result<Option<Trail>, AuditError> {
    let backend = match config.commit {
        CommitMode::None => return Ok(None),
        CommitMode::Api => {
            let (Some(repo), Some(token)) = (session.repo.clone(), session.token.clone()) else {
                return Ok(None);
            };
            api_backend(&session.api_url, token, repo, config)?
        }
        CommitMode::Git => Backend::Git(git::GitBranch {
            dir: repo_dir.to_path_buf(),
            remote: "origin".to_owned(),
            name: config.branch.clone(),
        }),
    };
    Trail::open(backend, config, reads).map(Some)
}

fn api_backend(
    api_url: &str,
    token: Token,
    repo: Repo,
    config: &AuditConfig,
) -> Result<Backend, AuditError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(GithubError::Runtime)?;
    let client = runtime
        .block_on(async { Client::new(api_url, token, Retry::default()) })
        .map_err(GithubError::Api)?;
    Ok(Backend::Api(Box::new(ApiBackend {
        runtime,
        client,
        repo,
        branch: config.branch.clone(),
    })))
}

impl Trail {
    fn open(backend: Backend, config: &AuditConfig, reads: Reads) -> Result<Self, AuditError> {
        let dir = private_dir("skillgate-audit-")?;
        let mut trail = Self {
            backend,
            layout: Layout::of(&config.db),
            reads,
            cap: config.segment_size,
            head: None,
            read: None,
            baseline: Baseline::empty(),
            dir,
            attempts: config.attempts.max(1),
            traffic: Traffic::default(),
        };
        trail.reread()?;
        Ok(trail)
    }

    /// The database this run records into.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("skills.db")
    }

    pub fn branch(&self) -> &str {
        self.backend.branch()
    }

    /// Bytes fetched and uploaded so far, and the largest file of the last commit.
    pub fn traffic(&self) -> Traffic {
        self.traffic
    }

    /// A warning once a committed file nears what GitHub takes: it warns about files over
    /// 50 MiB on push and refuses them over 100 MiB.
    pub fn size_warning(&self) -> Option<String> {
        large_file_warning(
            self.branch(),
            usize::try_from(self.traffic.largest).unwrap_or(usize::MAX),
        )
    }

    /// A warning when the chain on the branch was already broken when this run read it: the
    /// run's rows are added after it, and `audit verify` names what broke.
    pub fn chain_warning(&self) -> Option<String> {
        self.baseline.first_break().map(|(id, kind)| {
            format!(
                "audit branch {}: the chain was already broken at row {id} ({}) when this run read it; run `skillgate audit verify` on the branch's database to see what changed",
                self.branch(),
                kind.trim_matches('"')
            )
        })
    }

    /// Read the branch's head and its trail into [`Trail::path`] (none: a fresh file).
    fn reread(&mut self) -> Result<(), AuditError> {
        let path = self.path();
        remove_with_journals(&path)?;
        self.head = self.backend.head()?;
        self.read = None;
        self.baseline = Baseline::empty();
        let Some(head) = self.head.clone() else {
            return Ok(());
        };
        let read_dir = self.dir.path().join("branch");
        let _ = std::fs::remove_dir_all(&read_dir);
        std::fs::create_dir(&read_dir).map_err(|err| AuditError::file("create", &read_dir, err))?;
        let (held, fetched) = fetch(&self.backend, &self.layout, &head, &self.reads, &read_dir)?;
        self.traffic.fetched += fetched;
        held.assemble(&path)?;
        self.baseline = Store::open_read_only(&path)?.baseline()?;
        self.read = Some(held);
        Ok(())
    }

    /// Check the working copy before anything relies on it or commits it: the schema is
    /// skillgate's own, every row the branch held is there unchanged, and the chain has no
    /// break the branch did not have. Call it before reading decisions back from the copy.
    pub fn validate(&self) -> Result<(), AuditError> {
        let path = self.path();
        if !path.exists() && self.read.is_none() {
            // A trail not created yet, and nothing recorded into it.
            return Ok(());
        }
        Store::open_read_only(&path)?
            .validate(Some(&self.baseline))
            .map_err(|err| AuditError::Tampered {
                branch: self.branch().to_owned(),
                message: err.to_string(),
            })
    }

    /// Record `run` again into a fresh copy of what the branch held and require the working
    /// copy to hold exactly those rows past what the branch held; the replay then becomes the
    /// working copy, so what is committed is the branch's trail and this run, nothing else.
    fn replay(&self, run: &GateRun) -> Result<(), AuditError> {
        let dir = private_dir("skillgate-replay-")?;
        let replay_path = dir.path().join("skills.db");
        if let Some(held) = &self.read {
            held.assemble(&replay_path)?;
        }
        let mut replay = Store::open(&replay_path)?;
        replay.record(run)?;
        let path = self.path();
        if path.exists() {
            Store::open_read_only(&path)?
                .same_appends(&replay, &self.baseline)
                .map_err(|err| AuditError::Tampered {
                    branch: self.branch().to_owned(),
                    message: err.to_string(),
                })?;
        }
        drop(replay);
        // A journal left beside the copy would be rolled back into the file on its next open.
        remove_with_journals(&path)?;
        let bytes = std::fs::read(&replay_path)
            .map_err(|err| AuditError::file("read", &replay_path, err))?;
        write_private(&path, &bytes)
    }

    /// Commit the trail back when `changed`; on a lost race, re-read the branch, re-record
    /// `run` and try again, with jittered backoff. Returns the new commit, `None` when nothing
    /// changed. When every attempt loses, the results document is written to `keep_dir`.
    pub fn commit(
        &mut self,
        run: &GateRun,
        changed: bool,
        keep_dir: &Path,
    ) -> Result<Option<String>, AuditError> {
        let reapply = |path: &Path| -> Result<(), AuditError> {
            Store::open(path)?.record(run)?;
            Ok(())
        };
        // Whether or not anything changed: a forged row in the copy must stop the run.
        self.validate()?;
        self.replay(run)?;
        match self.commit_with(&commit_message(run), changed, &reapply)? {
            Some(Ok(sha)) => Ok(Some(sha)),
            None => Ok(None),
            Some(Err(attempts)) => Err(AuditError::Exhausted {
                branch: self.branch().to_owned(),
                attempts,
                kept: keep(run, keep_dir)?,
            }),
        }
    }

    /// The commit loop for any change to the database: `reapply` makes the same change again
    /// on a freshly read copy after a lost race. `Some(Err(attempts))` when every attempt lost.
    /// `reapply` is the caller's code, and fails with the caller's error.
    pub fn commit_with<E: From<AuditError>>(
        &mut self,
        message: &str,
        changed: bool,
        reapply: &dyn Fn(&Path) -> Result<(), E>,
    ) -> Result<Option<Result<String, u32>>, E> {
        // Nothing recorded: no commit (and no branch made for an empty database).
        if !changed {
            return Ok(None);
        }
        for attempt in 1..=self.attempts {
            self.validate()?;
            let changes = self.changes()?;
            let sizes = changes
                .iter()
                .filter_map(|(_, bytes)| bytes.as_ref().map(|b| b.len() as u64));
            let (uploaded, largest) = sizes.fold((0, 0), |(sum, max), n| (sum + n, max.max(n)));
            self.traffic.uploaded += uploaded;
            match self
                .backend
                .commit(self.head.as_deref(), &changes, message)?
            {
                Landed::Commit(sha) => {
                    self.head = Some(sha.clone());
                    self.traffic.largest = largest;
                    return Ok(Some(Ok(sha)));
                }
                Landed::Moved if attempt < self.attempts => {
                    std::thread::sleep(backoff(attempt));
                    self.reread()?;
                    reapply(&self.path())?;
                }
                Landed::Moved => {}
            }
        }
        Ok(Some(Err(self.attempts)))
    }

    /// The files a commit of the working copy writes: the registry, the newest segment (and any
    /// segment it seals), and, converting a trail written before segments, its single file
    /// removed. Each is checkpointed and passes `integrity_check`.
    fn changes(&self) -> Result<Vec<Change>, AuditError> {
        let out = self.dir.path().join("out");
        let _ = std::fs::remove_dir_all(&out);
        let split = Store::open(&self.path())?.split(&out, self.cap)?;
        let mut changes = vec![(
            self.layout.registry.clone(),
            Some(ready_bytes(&split.registry)?),
        )];
        for (segment, file) in &split.segments {
            check_integrity(file)?;
            let bytes = std::fs::read(file).map_err(|err| AuditError::file("read", file, err))?;
            changes.push((self.layout.segment(segment.seq), Some(bytes)));
        }
        if let Some(Held::Single { path, .. }) = &self.read
            && *path != self.layout.registry
        {
            changes.push((path.clone(), None));
        }
        Ok(changes)
    }
}

/// Read the trail at `head` into `dir`: the registry and the segments `reads` asks for, or the
/// single file of a trail written before segments. Every file must be a SQLite database with
/// skillgate's schema, and every segment what the registry recorded of it. Returns what was
/// read and the bytes fetched.
fn fetch(
    backend: &Backend,
    layout: &Layout,
    head: &str,
    reads: &Reads,
    dir: &Path,
) -> Result<(Held, u64), AuditError> {
    let branch = backend.branch().to_owned();
    let mut fetched = 0u64;
    let mut take = |path: &str, bytes: Option<Vec<u8>>| -> Result<Option<Vec<u8>>, AuditError> {
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        fetched += bytes.len() as u64;
        if !bytes.starts_with(SQLITE_MAGIC) {
            return Err(AuditError::NotDatabase {
                branch: branch.clone(),
                head: head.to_owned(),
                path: path.to_owned(),
                start: preview(&bytes),
            });
        }
        Ok(Some(bytes))
    };
    let tampered = |message: String| AuditError::Tampered {
        branch: branch.clone(),
        message: format!("at {head}: {message}"),
    };
    // What the branch holds must be skillgate's schema: a trigger committed there (by hand, or
    // by a run before this check) is refused, not built upon.
    let schema_checked = |file: &Path, path: &str| -> Result<Store, AuditError> {
        let store = Store::open_read_only(file)?;
        store
            .check_schema()
            .map_err(|err| tampered(err.to_string().replace(&file.display().to_string(), path)))?;
        Ok(store)
    };
    let registry_bytes = backend
        .read(head, std::slice::from_ref(&layout.registry))?
        .pop()
        .flatten();
    let Some(bytes) = take(&layout.registry, registry_bytes)? else {
        // A trail written before segments: one file, read whole.
        let single = backend
            .read(head, std::slice::from_ref(&layout.single))?
            .pop()
            .flatten();
        // A branch without the file is not a fresh trail: starting one on top would drop
        // every row before it from the branch's head.
        let bytes = take(&layout.single, single)?.ok_or_else(|| AuditError::NoDatabase {
            branch: branch.clone(),
            head: head.to_owned(),
        })?;
        let file = dir.join("single.db");
        write_private(&file, &bytes)?;
        schema_checked(&file, &layout.single)?;
        let held = Held::Single {
            file,
            path: layout.single.clone(),
        };
        return Ok((held, fetched));
    };
    let registry = dir.join("registry.db");
    write_private(&registry, &bytes)?;
    let store = schema_checked(&registry, &layout.registry)?;
    let recorded = store.segments()?;
    if recorded.is_empty() {
        // A registry whose records were emptied would hide every row of the segments and have
        // the first one written over: the branch must hold none.
        let first = layout.segment(1);
        if backend
            .read(head, std::slice::from_ref(&first))?
            .pop()
            .flatten()
            .is_some()
        {
            return Err(tampered(format!(
                "{} records no segment, but {first} is there",
                layout.registry
            )));
        }
        // A single database at the registry's own path (`[audit] db = ".../registry.db"`).
        drop(store);
        let held = Held::Single {
            file: registry,
            path: layout.registry.clone(),
        };
        return Ok((held, fetched));
    }
    let rows = store.history_rows()?;
    if rows > 0 {
        return Err(tampered(format!(
            "{} holds {rows} approval_history rows; on a segmented trail they are in {}/",
            layout.registry, layout.trail
        )));
    }
    let wanted = window(&store, &recorded, reads)?;
    drop(store);
    let paths: Vec<String> = wanted.iter().map(|s| layout.segment(s.seq)).collect();
    let files = backend.read(head, &paths)?;
    let mut segments = Vec::new();
    for ((segment, path), bytes) in wanted.into_iter().zip(&paths).zip(files) {
        let bytes = take(path, bytes)?.ok_or_else(|| {
            tampered(format!(
                "{path} is missing: {} records it ({} rows)",
                layout.registry, segment.rows
            ))
        })?;
        if let Some(recorded) = segment.sha256.as_deref()
            && sha256(&bytes) != recorded
        {
            return Err(tampered(format!(
                "{path} is not the segment that was sealed (its sha256 is {}, {} recorded {})",
                &sha256(&bytes)[..12],
                layout.registry,
                recorded.get(..12).unwrap_or(recorded)
            )));
        }
        let file = dir.join(segment.file_name());
        write_private(&file, &bytes)?;
        segments.push((segment, file, path.clone()));
    }
    Ok((Held::Segmented { registry, segments }, fetched))
}

/// The segments `reads` asks for, oldest first: the newest (open) one, the sealed ones before
/// it back to the first whose newest row is older than the moment asked for, and always the
/// newest segment that holds rows, so the chain's last row is in the copy.
fn window(store: &Store, recorded: &[Segment], reads: &Reads) -> Result<Vec<Segment>, AuditError> {
    let (since, sql) = match reads {
        Reads::Registry => return Ok(Vec::new()),
        Reads::All => return Ok(recorded.iter().filter(|s| s.rows > 0).cloned().collect()),
        // An hour's margin for clocks; never in the future.
        Reads::Since(since) => (
            since.as_deref(),
            "SELECT min(COALESCE(datetime(?1, '-1 hour'), datetime('now', '-1 hour')),
                        datetime('now', '-1 hour'))",
        ),
        Reads::PullRequest(opened) => (
            Some(opened.as_str()),
            "SELECT min(COALESCE(datetime(?1, '-1 hour'), '0000-00-00 00:00:00'),
                        datetime('now', '-1 hour'))",
        ),
    };
    let threshold: String = store
        .connection()
        .query_row(sql, [since], |row| row.get(0))
        .map_err(|source| StoreError::Read {
            path: store.path().to_path_buf(),
            source,
        })?;
    let mut wanted: Vec<Segment> = Vec::new();
    for segment in recorded.iter().rev() {
        let recent = match (&segment.newest_at, &segment.sealed_at) {
            (_, None) => true,
            (Some(at), _) | (None, Some(at)) => *at >= threshold,
        };
        let has_tail = wanted.iter().any(|s| s.rows > 0);
        if !recent && has_tail {
            break;
        }
        if segment.rows > 0 {
            wanted.push(segment.clone());
        }
    }
    wanted.reverse();
    Ok(wanted)
}

/// Remove `path` and any journal SQLite left beside it.
fn remove_with_journals(path: &Path) -> Result<(), AuditError> {
    for stale in [
        path.to_path_buf(),
        path.with_extension("db-journal"),
        path.with_extension("db-wal"),
        path.with_extension("db-shm"),
    ] {
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(AuditError::file("replace", stale, err)),
        }
    }
    Ok(())
}

/// The first bytes of every SQLite 3 database file.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The start of a file that is not a database, quoted, for the error: printable ASCII only.
fn preview(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing: it is empty".to_owned();
    }
    let start: String = bytes
        .iter()
        .take(24)
        .map(|&b| match b {
            b' '..=b'~' => char::from(b),
            _ => '.',
        })
        .collect();
    format!("`{start}`")
}

/// A directory only this user can list or open (0700), with a random name.
pub(crate) fn private_dir(prefix: &str) -> Result<tempfile::TempDir, AuditError> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    builder
        .tempdir()
        .map_err(|err| AuditError::file("create a directory in", std::env::temp_dir(), err))
}

/// Write `bytes` as a file only this user can read or write (0600).
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AuditError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|err| AuditError::file("write", path, err))
}

fn commit_message(run: &GateRun) -> String {
    let s = &run.summary;
    let mut message = format!(
        "skillgate: {} decision{}",
        s.skills,
        if s.skills == 1 { "" } else { "s" }
    );
    if let Some(pr) = run.run.pull_request {
        message.push_str(&format!(" for #{pr}"));
    }
    if let Some(head) = &run.run.head {
        message.push_str(&format!(" at {}", head.get(..12).unwrap_or(head)));
    }
    message.push_str(&format!(
        "\n\n{} auto, {} escalate, {} human, {} needs correction\nrepository: {}\nrun: {} attempt {}\n",
        s.auto,
        s.escalate,
        s.human,
        s.needs_correction,
        run.run.repository,
        run.run.run_id.as_deref().unwrap_or("local"),
        run.run.run_attempt
    ));
    message
}

/// 250 ms doubling to 8 s, each ±50 %: racing runs spread out instead of colliding again.
pub(crate) fn backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(250).saturating_mul(1 << attempt.min(5));
    base.min(Duration::from_secs(8))
        .mul_f64(0.5 + crate::random::unit())
}

/// Above this, a committed database draws a warning (GitHub's own threshold for a push).
const LARGE_FILE: usize = 50 << 20;

fn large_file_warning(branch: &str, bytes: usize) -> Option<String> {
    (bytes > LARGE_FILE).then(|| {
        format!(
            "the largest file of the audit trail on {branch} is {:.1} MiB: GitHub refuses files over 100 MiB; \
             segments are sealed at `[audit] segment-size`, so only the registry (the skills and \
             other mutable tables) can grow this large",
            bytes as f64 / f64::from(1u32 << 20)
        )
    })
}

/// What `compact` did.
#[derive(Debug)]
pub struct Compaction {
    pub branch: String,
    /// The head before; the tag points at it.
    pub old_head: String,
    pub tag: String,
    /// The branch's new root commit; `None` when the head was one already.
    pub commit: Option<String>,
    /// Commits in the history replaced; `None` in a shallow repository, which cannot count them.
    pub squashed: Option<u64>,
    /// Decision rows in the database, whose chain was verified first.
    pub rows: u64,
}

/// Squash the audit branch on `remote` of the checkout at `repo_dir` into one commit holding
/// its head's tree, after checking the database's chain at that head and tagging it (`tag`, or
/// `skillgate-audit-` and the head's first 12 digits). The push carries a lease on the head
/// read: a run landing meanwhile makes this read the new head and try again, never lost.
pub fn compact(
    config: &AuditConfig,
    repo_dir: &Path,
    remote: &str,
    tag: Option<&str>,
) -> Result<Compaction, AuditError> {
    let branch = git::GitBranch {
        dir: repo_dir.to_path_buf(),
        remote: remote.to_owned(),
        name: config.branch.clone(),
    };
    let layout = Layout::of(&config.db);
    let git_err = |source| AuditError::CompactGit {
        branch: config.branch.clone(),
        source,
    };
    let attempts = config.attempts.max(1);
    for attempt in 1..=attempts {
        let head = branch
            .head()
            .map_err(git_err)?
            .ok_or_else(|| AuditError::NoBranch {
                branch: config.branch.clone(),
                remote: remote.to_owned(),
            })?;
        // The whole trail: every segment, so the chain is verified from its first row.
        let dir = private_dir("skillgate-compact-")?;
        let backend = Backend::Git(branch.clone());
        let (held, _) =
            fetch(&backend, &layout, &head, &Reads::All, dir.path()).map_err(|err| match err {
                AuditError::Git { source, .. } => git_err(source),
                other => other,
            })?;
        let path = dir.path().join("whole.db");
        held.assemble(&path)?;
        // The whole chain from its first row: with the segments' records gone, it must start
        // at the genesis hash, so rows cut from the front show as a break.
        Store::open(&path)?
            .connection()
            .execute("DELETE FROM trail_segments", [])
            .map_err(|source| StoreError::Write {
                path: path.clone(),
                source,
            })?;
        let report = Store::open_read_only(&path)?.verify_chain()?;
        if let Some(first) = report.breaks.first() {
            return Err(AuditError::Broken {
                branch: config.branch.clone(),
                head,
                first: first.to_string(),
            });
        }
        let tag = tag.map_or_else(
            || format!("skillgate-audit-{}", head.get(..12).unwrap_or(&head)),
            str::to_owned,
        );
        let message = format!(
            "skillgate: audit trail compacted\n\n\
             The branch's history up to {head} is at tag {tag}.\n\
             The database's chain was intact there: {} rows, head {}.\n",
            report.rows, report.head
        );
        let done = |commit, squashed| Compaction {
            branch: config.branch.clone(),
            old_head: head.clone(),
            tag: tag.clone(),
            commit,
            squashed,
            rows: report.rows,
        };
        match branch.compact(&head, &tag, &message).map_err(git_err)? {
            git::Compacted::Commit { commit, squashed } => {
                return Ok(done(Some(commit), squashed));
            }
            git::Compacted::AlreadyOne => return Ok(done(None, Some(1))),
            git::Compacted::Moved if attempt < attempts => std::thread::sleep(backoff(attempt)),
            git::Compacted::Moved => {}
        }
    }
    Err(AuditError::CompactRaced {
        branch: config.branch.clone(),
        attempts,
    })
}

/// The file as it will be committed: one file (no journal or WAL), whole (`integrity_check`).
pub fn ready_bytes(path: &Path) -> Result<Vec<u8>, AuditError> {
    Store::open(path)?.prepare_for_commit()?;
    std::fs::read(path).map_err(|source| AuditError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Write the results document where a later `publish` can find it.
pub fn keep(run: &GateRun, dir: &Path) -> Result<PathBuf, AuditError> {
    std::fs::create_dir_all(dir).map_err(|err| AuditError::file("create", dir, err))?;
    let name = format!(
        "unrecorded-{}-{}.json",
        run.run.run_id.as_deref().unwrap_or("local"),
        run.run.run_attempt
    );
    let path = dir.join(name);
    std::fs::write(&path, crate::render::json(run))
        .map_err(|err| AuditError::file("write", &path, err))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::large_file_warning;

    #[test]
    fn a_file_past_50_mb_is_warned_about() {
        assert_eq!(large_file_warning("skillgate/audit", 50 << 20), None);
        assert_eq!(
            large_file_warning("skillgate/audit", 62_340_000).as_deref(),
            Some(
                "the largest file of the audit trail on skillgate/audit is 59.5 MiB: GitHub refuses files over 100 MiB; \
                 segments are sealed at `[audit] segment-size`, so only the registry (the skills and \
                 other mutable tables) can grow this large"
            )
        );
    }
}
