//! Issue #18, sealed segments: the trail on its branch never outgrows what GitHub takes. Runs,
//! re-runs and reviews that straddle a seal; which segments a run reads; a trail of the single
//! file that the Git Data API would refuse converted and landed; conversions racing each other.
//! The branch lives on the fake GitHub, which refuses a blob of 40 MiB as GitHub is reported to.

mod common;
mod support;

use rusqlite::Connection;
use skillgate::audit::{self, Reads, Trail};
use skillgate::config::{AuditConfig, MIN_SEGMENT_SIZE};
use skillgate::gate::GateRun;
use skillgate::github::Session;
use skillgate::store::{Review, ReviewDecision, Segment, Store};
use support::github::FakeGitHub;

const BRANCH: &str = "skillgate/audit";
const REPOSITORY: &str = "octo/skills";
const PR_HEAD: &str = "2222222222222222222222222222222222222222";

/// The examples' run (four of five skills escalated) as run `n` of pull request `pr`.
fn gate_run(n: usize, pr: u64) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = REPOSITORY.to_owned();
    run.run.pull_request = Some(pr);
    run.run.head = Some(format!("{:040x}", 0x1000 + n));
    run.run.pull_request_head = Some(if pr == 7 {
        PR_HEAD.to_owned()
    } else {
        format!("{:040x}", 0x9000 + n)
    });
    run.run.run_id = Some(format!("run-{n}"));
    // Recorded now: a segment's rows are as recent as its runs.
    run.run.finished_at = now(0);
    run
}

/// Now, `days` days back, in RFC 3339.
fn now(days: i64) -> String {
    Connection::open_in_memory()
        .and_then(|c| {
            c.query_row(
                "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 'now', ?1 || ' days')",
                [days.to_string()],
                |r| r.get(0),
            )
        })
        .expect("time")
}

fn session(fake: &FakeGitHub) -> Session {
    let (url, token) = (fake.url(), fake.token());
    Session::from_vars(
        &|name| match name {
            "GITHUB_REPOSITORY" => Some(REPOSITORY.to_owned()),
            "GITHUB_TOKEN" => Some(token.clone()),
            "GITHUB_API_URL" => Some(url.clone()),
            _ => None,
        },
        None,
    )
    .expect("session")
}

/// The smallest segments: a handful of runs each.
fn small() -> AuditConfig {
    AuditConfig {
        segment_size: MIN_SEGMENT_SIZE,
        ..AuditConfig::default()
    }
}

fn connect(fake: &FakeGitHub, config: &AuditConfig, reads: Reads) -> Trail {
    let repo = tempfile::tempdir().expect("tempdir");
    audit::connect(config, &session(fake), repo.path(), reads)
        .expect("connect")
        .expect("a trail in api mode")
}

/// Record and commit `run` as a publishing job does; the rows it added.
fn land(fake: &FakeGitHub, config: &AuditConfig, run: &GateRun, reads: Reads) -> usize {
    let mut trail = connect(fake, config, reads);
    let stats = Store::open(&trail.path())
        .and_then(|mut s| s.record(run))
        .expect("record");
    let keep = tempfile::tempdir().expect("tempdir");
    trail
        .commit(run, stats.inserted > 0, keep.path())
        .expect("commit");
    stats.inserted
}

/// The segments the branch's registry records now.
fn segments(fake: &FakeGitHub) -> Vec<Segment> {
    let bytes = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("a registry on the branch");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("registry.db");
    std::fs::write(&path, bytes).expect("write");
    Store::open_read_only(&path)
        .and_then(|s| s.segments())
        .expect("segments")
}

/// The whole trail on the branch, verified: (rows, rows per run id; reviews have none).
fn whole(fake: &FakeGitHub) -> (i64, Vec<(Option<String>, i64)>) {
    let bytes = common::whole_trail(&|p| fake.file_at(BRANCH, p)).expect("a trail");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("whole.db");
    std::fs::write(&path, bytes).expect("write");
    let store = Store::open_read_only(&path).expect("open");
    let report = store.verify_chain().expect("verify");
    assert!(report.is_intact(), "{:?}", report.breaks);
    let conn = Connection::open(&path).expect("open");
    let per_run = conn
        .prepare("SELECT run_id, count(*) FROM approval_history GROUP BY run_id ORDER BY run_id")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()
        })
        .expect("rows");
    (i64::try_from(report.rows).expect("rows"), per_run)
}

/// Date segment `seq` in the branch's registry, its newest row and its seal: `now` moved by
/// `ago` (`-2 days`).
fn set_sealed_at(fake: &FakeGitHub, seq: i64, ago: &str) {
    let bytes = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("registry.db");
    std::fs::write(&path, bytes).expect("write");
    Connection::open(&path)
        .and_then(|c| {
            c.execute(
                "UPDATE trail_segments SET sealed_at = datetime('now', ?1),
                                           newest_at = datetime('now', ?1)
                 WHERE seq = ?2",
                rusqlite::params![ago, seq],
            )
        })
        .expect("edit");
    let edited = std::fs::read(&path).expect("read");
    fake.commit_files(BRANCH, &[(common::TRAIL_REGISTRY, &edited)], "a seal dated");
}

/// Land runs of other pull requests until the run of pull request 7 is in a sealed segment
/// and the newest segment holds none of its rows; the runs landed.
fn seal_past(fake: &FakeGitHub, config: &AuditConfig, first: usize) -> usize {
    let mut n = first;
    loop {
        let segments = segments(fake);
        let sealed_with_pr7 = segments
            .iter()
            .any(|s| s.is_sealed() && s.first_id == Some(1));
        if sealed_with_pr7 {
            return n - first;
        }
        n += 1;
        assert!(n < first + 100, "a seal after 100 runs: {segments:?}");
        land(
            fake,
            config,
            &gate_run(n, 100 + n as u64),
            Reads::Since(None),
        );
    }
}

#[test]
fn a_run_a_rerun_and_a_review_that_straddle_a_seal_keep_exact() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let config = small();
    // Pull request 7's run: four skills escalated.
    let pr7 = gate_run(1, 7);
    assert_eq!(land(&fake, &config, &pr7, Reads::Since(None)), 5);
    let landed = seal_past(&fake, &config, 1);
    assert!(landed >= 2, "a few runs fill 64 KiB: {landed}");
    let sealed = segments(&fake);
    let open = sealed.last().expect("an open segment");
    assert!(!open.is_sealed());
    assert!(
        sealed[0].last_id < open.first_id.or(Some(i64::MAX)),
        "{sealed:?}"
    );
    // No file on the branch past the cap by more than a run.
    for segment in &sealed {
        let name = format!(".skillgate/trail/{}", segment.file_name());
        if let Some(bytes) = fake.file_at(BRANCH, &name) {
            assert!(
                bytes.len() as u64 <= MIN_SEGMENT_SIZE + 2 * 16_384,
                "{name}: {} bytes",
                bytes.len()
            );
        }
    }

    // The re-run of pull request 7's job, published again: its rows are in the sealed
    // segment, which it reads because it was sealed after the run started.
    let rows_before = whole(&fake).0;
    let head_before = fake.ref_sha(&format!("refs/heads/{BRANCH}"));
    assert_eq!(
        land(
            &fake,
            &config,
            &pr7,
            Reads::Since(Some(pr7.run.started_at.clone()))
        ),
        0,
        "nothing recorded twice"
    );
    assert_eq!(whole(&fake).0, rows_before);
    assert_eq!(fake.ref_sha(&format!("refs/heads/{BRANCH}")), head_before);

    // A review of pull request 7, opened before its run: its escalations are pending though
    // they are in the sealed segment, and the review's rows chain on in the open one.
    let mut trail = connect(&fake, &config, Reads::PullRequest(now(-1)));
    let mut store = Store::open(&trail.path()).expect("open");
    let pending = store
        .pending_escalations(REPOSITORY, 7, PR_HEAD)
        .expect("pending");
    assert_eq!(
        pending.iter().map(|p| p.skill.as_str()).collect::<Vec<_>>(),
        [
            "commit-message-style",
            "csv-summary",
            "semver-bump",
            "todo-scan"
        ]
    );
    let review = Review {
        approver: "alice".to_owned(),
        decision: ReviewDecision::Approved,
        reasoning: "looks right".to_owned(),
        reviewed_at: now(0),
        review_id: "501".to_owned(),
    };
    let mut recorded = 0;
    for p in &pending {
        if store.record_review(p, &review).expect("review") {
            recorded += 1;
        }
    }
    assert_eq!(recorded, 4);
    drop(store);
    let reapply = |_: &std::path::Path| -> Result<(), audit::AuditError> { Ok(()) };
    let landed = trail
        .commit_with("review", true, &reapply)
        .expect("commit")
        .expect("changed");
    assert!(landed.is_ok());
    let (rows, per_run) = whole(&fake);
    assert_eq!(rows, rows_before + 4);
    // Pull request 7's run has its five rows; the four reviews carry no run.
    assert!(
        per_run.contains(&(Some("run-1".to_owned()), 5)),
        "{per_run:?}"
    );
    assert!(per_run.contains(&(None, 4)), "{per_run:?}");
    let newest = segments(&fake);
    let open = newest.last().expect("open");
    assert!(
        open.last_id
            .is_some_and(|id| id > sealed[0].last_id.unwrap_or(0))
    );
    fake.assert_no_violations();
}

#[test]
fn a_run_reads_the_newest_segment_and_only_the_sealed_ones_its_window_reaches() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let config = small();
    land(&fake, &config, &gate_run(1, 7), Reads::Since(None));
    let mut n = 1 + seal_past(&fake, &config, 1);
    while segments(&fake).iter().filter(|s| s.is_sealed()).count() < 2 {
        n += 1;
        land(
            &fake,
            &config,
            &gate_run(n, 100 + n as u64),
            Reads::Since(None),
        );
    }
    let recorded = segments(&fake);
    let sealed: Vec<&Segment> = recorded.iter().filter(|s| s.is_sealed()).collect();
    let open = recorded.last().expect("open");
    let size = |s: &Segment| -> u64 {
        fake.file_at(BRANCH, &format!(".skillgate/trail/{}", s.file_name()))
            .map_or(0, |b| b.len() as u64)
    };
    let registry = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry")
        .len() as u64;
    let fetched = |reads: Reads| connect(&fake, &config, reads).traffic().fetched;
    // Every seal happened a moment ago, within the hour's margin: a run reads them all.
    assert!(sealed.len() >= 2, "{recorded:?}");
    let all: u64 = recorded.iter().map(size).sum();
    assert_eq!(fetched(Reads::Since(None)), registry + all);
    assert_eq!(fetched(Reads::Registry), registry);
    assert_eq!(fetched(Reads::All), registry + all);
    // Only the newest was sealed within the hour: a run reads it and the open one.
    for s in &sealed[..sealed.len() - 1] {
        set_sealed_at(&fake, s.seq, "-2 hours");
    }
    let registry = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry")
        .len() as u64;
    let newest_sealed = sealed.last().expect("a sealed segment");
    assert_eq!(
        fetched(Reads::Since(None)),
        registry + size(open) + size(newest_sealed)
    );

    // Sealed two days ago: a run now reads the newest segment alone; a document of a run that
    // started three days ago, or a review of a pull request opened then, reads it too.
    for s in &sealed {
        set_sealed_at(&fake, s.seq, "-2 days");
    }
    let registry = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry")
        .len() as u64;
    assert_eq!(fetched(Reads::Since(None)), registry + size(open));
    assert_eq!(
        fetched(Reads::Since(Some(now(-3)))),
        registry + all,
        "every sealed segment"
    );
    assert_eq!(fetched(Reads::PullRequest(now(-3))), registry + all);
    assert_eq!(fetched(Reads::PullRequest(now(-1))), registry + size(open));
    // Sealed 200 days ago: a document of a run 100 days ago reads the open segment alone, one
    // of a run a year ago reads them all.
    for s in &sealed {
        set_sealed_at(&fake, s.seq, "-200 days");
    }
    let registry = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry")
        .len() as u64;
    assert_eq!(
        fetched(Reads::Since(Some(now(-100)))),
        registry + size(open)
    );
    assert_eq!(fetched(Reads::Since(Some(now(-365)))), registry + all);
    // A moment in the future is now.
    assert_eq!(fetched(Reads::Since(Some(now(30)))), registry + size(open));
    // A pull request is GitHub's word: opened a year ago, every segment since is read.
    assert_eq!(fetched(Reads::PullRequest(now(-365))), registry + all);
}

/// A single-file trail of `mib` MiB or more, as a version before segments left it: runs whose
/// reasons are long, recorded into one file of schema version 4 (no `trail_segments`).
fn big_single_file(dir: &std::path::Path, mib: u64) -> Vec<u8> {
    let path = dir.join("skills.db");
    let mut store = Store::open(&path).expect("open");
    let long = "a reason a reviewer wrote at length. ".repeat(3_000);
    let mut n = 0;
    while std::fs::metadata(&path).expect("size").len() < mib << 20 {
        n += 1;
        let mut run = gate_run(10_000 + n, 200 + n as u64);
        for skill in &mut run.skills {
            skill.decision.reasons.push(long.clone());
        }
        store.record(&run).expect("record");
    }
    to_version_4(&store);
    drop(store);
    std::fs::read(&path).expect("read")
}

/// The schema a version before segments wrote: version 4, without `trail_segments`.
fn to_version_4(store: &Store) {
    store
        .connection()
        .execute_batch(
            "DROP INDEX idx_approval_history_skill_timestamp; DROP INDEX idx_usage_loaded_at;
             DROP INDEX idx_skills_created_at; DROP INDEX idx_approval_history_escalated;
             DROP INDEX idx_approval_history_change; DROP INDEX idx_usage_effectiveness;
             DROP TABLE trail_segments;
             PRAGMA user_version = 4;",
        )
        .expect("version 4");
}

#[test]
fn a_single_file_the_api_would_refuse_is_converted_into_segments_that_land() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let dir = tempfile::tempdir().expect("tempdir");
    let single = big_single_file(dir.path(), 41);
    assert!(single.len() >= 41 << 20, "{}", single.len());
    // Committed by a version before segments (by hand here: the API refuses it, see below).
    fake.commit_files(
        BRANCH,
        &[(common::TRAIL_SINGLE, &single)],
        "a trail before segments",
    );
    let rows_before: i64 = {
        let path = dir.path().join("skills.db");
        Connection::open(&path)
            .and_then(|c| c.query_row("SELECT count(*) FROM approval_history", [], |r| r.get(0)))
            .expect("rows")
    };
    // What committing the single file through the API comes to now.
    let answer = support::github::client::request(
        &fake,
        "POST",
        "/repos/octo/skills/git/blobs",
        Some(&serde_json::json!({
            "content": base64_of(&single),
            "encoding": "base64",
        })),
    );
    assert_eq!(answer.status, 422, "GitHub refuses a blob of 40 MiB");

    // The first run of this version converts it: the default 8 MiB segments.
    let config = AuditConfig::default();
    assert_eq!(land(&fake, &config, &gate_run(1, 7), Reads::Since(None)), 5);
    assert_eq!(fake.file_at(BRANCH, common::TRAIL_SINGLE), None, "removed");
    let recorded = segments(&fake);
    assert!(recorded.len() >= 5, "{recorded:?}");
    for segment in &recorded {
        let name = format!(".skillgate/trail/{}", segment.file_name());
        let bytes = fake.file_at(BRANCH, &name).expect("on the branch");
        assert!(
            bytes.len() as u64 <= config.segment_size + (1 << 20),
            "{name}: {} bytes",
            bytes.len()
        );
        assert!(segment.rows > 0, "{segment:?}");
    }
    // Every blob the run created was under 40 MiB, and every row is there, in one chain.
    let (rows, _) = whole(&fake);
    assert_eq!(rows, rows_before + 5);
    fake.assert_no_violations();
}

#[test]
fn two_runs_converting_one_single_file_trail_both_land_once() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let dir = tempfile::tempdir().expect("tempdir");
    // A small trail of the single file: one run.
    let path = dir.path().join("skills.db");
    let mut store = Store::open(&path).expect("open");
    store.record(&gate_run(1, 7)).expect("record");
    to_version_4(&store);
    drop(store);
    let single = std::fs::read(&path).expect("read");
    fake.commit_files(
        BRANCH,
        &[(common::TRAIL_SINGLE, &single)],
        "before segments",
    );

    // Both read the single file; the first converts it; the second's commit loses the race,
    // reads the segmented trail and lands on top.
    let config = small();
    let keep = tempfile::tempdir().expect("tempdir");
    let mut a = connect(&fake, &config, Reads::Since(None));
    let mut b = connect(&fake, &config, Reads::Since(None));
    let (run_a, run_b) = (gate_run(2, 8), gate_run(3, 9));
    for (trail, run) in [(&a, &run_a), (&b, &run_b)] {
        Store::open(&trail.path())
            .and_then(|mut s| s.record(run))
            .expect("record");
    }
    a.commit(&run_a, true, keep.path()).expect("a lands");
    b.commit(&run_b, true, keep.path())
        .expect("b lands after a re-read");
    assert_eq!(fake.file_at(BRANCH, common::TRAIL_SINGLE), None);
    let (rows, per_run) = whole(&fake);
    assert_eq!(rows, 15);
    assert_eq!(
        per_run,
        [
            (Some("run-1".to_owned()), 5),
            (Some("run-2".to_owned()), 5),
            (Some("run-3".to_owned()), 5)
        ]
    );
    fake.assert_no_violations();
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn a_seal_on_a_runs_last_row_then_a_quiet_day_leaves_the_next_run_landing() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let config = small();
    // One skill a run: every seal falls on a run's last row and leaves the open segment empty.
    let one = |n: usize| {
        let mut run = gate_run(n, 100 + n as u64);
        run.skills.truncate(1);
        run
    };
    let mut n = 0;
    loop {
        n += 1;
        assert!(n < 200, "no seal after 200 one-row runs");
        land(&fake, &config, &one(n), Reads::Since(None));
        if segments(&fake).iter().any(Segment::is_sealed) {
            break;
        }
    }
    let recorded = segments(&fake);
    let open = recorded.last().expect("open");
    assert_eq!((open.rows, open.first_id), (0, None), "{recorded:?}");
    // A day without runs.
    for s in recorded.iter().filter(|s| s.is_sealed()) {
        set_sealed_at(&fake, s.seq, "-1 days");
    }
    // The next runs read the newest segment that has rows, chain on from its last row, and
    // land; the chain holds across the seal.
    for k in 1..=2 {
        let mut trail = connect(&fake, &config, Reads::Since(None));
        assert_eq!(
            trail.chain_warning(),
            None,
            "no break read where there is none"
        );
        let run = one(n + k);
        Store::open(&trail.path())
            .and_then(|mut s| s.record(&run))
            .expect("record");
        let keep = tempfile::tempdir().expect("tempdir");
        trail.commit(&run, true, keep.path()).expect("lands");
    }
    let (rows, _) = whole(&fake);
    assert_eq!(rows, i64::try_from(n + 2).expect("rows"));
    fake.assert_no_violations();
}

#[test]
fn git_mode_seals_segments_and_reads_only_what_it_needs_from_a_filtering_remote() {
    use skillgate::config::CommitMode;
    let remote = tempfile::tempdir().expect("tempdir");
    let (bare, url) = common::bare_remote(remote.path(), "origin.git");
    let work = common::Repo::git();
    // A plain path, as a checkout of a local clone has: git takes it as a `file://` URL.
    common::git(
        work.path(),
        &["remote", "add", "origin", bare.to_str().expect("utf8")],
    );
    let config = AuditConfig {
        commit: CommitMode::Git,
        segment_size: MIN_SEGMENT_SIZE,
        ..AuditConfig::default()
    };
    let session = Session::from_vars(&|_| None, None).expect("session");
    let read = |path: &str| common::git_file(&bare, &format!("{BRANCH}:{path}"));
    let registry_at_head = || -> Vec<Segment> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("registry.db");
        std::fs::write(&path, read(common::TRAIL_REGISTRY).expect("registry")).expect("write");
        Store::open_read_only(&path)
            .and_then(|s| s.segments())
            .expect("segments")
    };
    let mut n = 0;
    let mut fetched = Vec::new();
    loop {
        n += 1;
        assert!(n < 60, "two seals within 60 runs");
        let mut trail = audit::connect(&config, &session, work.path(), Reads::Since(None))
            .expect("connect")
            .expect("git mode");
        let run = gate_run(n, 100 + n as u64);
        Store::open(&trail.path())
            .and_then(|mut s| s.record(&run))
            .expect("record");
        let keep = tempfile::tempdir().expect("tempdir");
        trail.commit(&run, true, keep.path()).expect("pushed");
        fetched.push(trail.traffic().fetched);
        if registry_at_head().iter().filter(|s| s.is_sealed()).count() >= 2 {
            break;
        }
    }
    // Sealed a day ago: a run reads the registry and the open segment, and lands.
    let recorded = registry_at_head();
    let bare_git = |args: &[&str]| common::git(&bare, args);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("registry.db");
    std::fs::write(&path, read(common::TRAIL_REGISTRY).expect("registry")).expect("write");
    Connection::open(&path)
        .and_then(|c| {
            c.execute_batch(
                "UPDATE trail_segments SET newest_at = datetime('now', '-1 days'),
                                           sealed_at = datetime('now', '-1 days')
                 WHERE sealed_at IS NOT NULL",
            )
        })
        .expect("dated");
    let seed = tempfile::tempdir().expect("tempdir");
    common::git(seed.path(), &["init", "-q"]);
    common::git(seed.path(), &["fetch", "-q", &url, BRANCH]);
    common::git(seed.path(), &["checkout", "-q", "FETCH_HEAD"]);
    std::fs::copy(&path, seed.path().join(common::TRAIL_REGISTRY)).expect("copy");
    common::git(seed.path(), &["commit", "-qam", "seals dated"]);
    common::git(
        seed.path(),
        &["push", "-q", &url, &format!("HEAD:{BRANCH}")],
    );
    let mut trail = audit::connect(&config, &session, work.path(), Reads::Since(None))
        .expect("connect")
        .expect("git mode");
    let open = recorded.last().expect("open");
    let open_bytes = if open.rows > 0 {
        read(&format!(".skillgate/trail/{}", open.file_name()))
            .expect("open segment")
            .len() as u64
    } else {
        // Nothing in the open segment: the newest sealed one is read for the chain's tail.
        let sealed = recorded
            .iter()
            .rev()
            .find(|s| s.is_sealed())
            .expect("sealed");
        read(&format!(".skillgate/trail/{}", sealed.file_name()))
            .expect("sealed segment")
            .len() as u64
    };
    let registry = std::fs::metadata(&path).expect("registry").len();
    assert_eq!(trail.traffic().fetched, registry + open_bytes);
    let run = gate_run(n + 1, 500);
    Store::open(&trail.path())
        .and_then(|mut s| s.record(&run))
        .expect("record");
    let keep = tempfile::tempdir().expect("tempdir");
    trail
        .commit(&run, true, keep.path())
        .expect("pushed on top");
    // Every row is on the branch once, in one chain, and no file passed the cap by a run.
    let (rows, _) = {
        let bytes = common::whole_trail(&|p| read(p)).expect("trail");
        let whole = dir.path().join("whole.db");
        std::fs::write(&whole, bytes).expect("write");
        let store = Store::open_read_only(&whole).expect("open");
        let report = store.verify_chain().expect("verify");
        assert!(report.is_intact(), "{:?}", report.breaks);
        (report.rows, ())
    };
    assert_eq!(rows, 5 * (n as u64 + 1));
    let listed = bare_git(&["ls-tree", "-r", "-l", BRANCH]);
    for line in listed.lines() {
        let size: u64 = line
            .split_whitespace()
            .nth(3)
            .and_then(|s| s.parse().ok())
            .expect("size");
        // The registry is small; a segment passes the cap by one run at most.
        let bound = if line.ends_with(common::TRAIL_REGISTRY) {
            160 << 10
        } else {
            MIN_SEGMENT_SIZE + 2 * 16_384
        };
        assert!(size <= bound, "{line}");
    }
    assert!(!listed.contains(common::TRAIL_SINGLE), "{listed}");
}

#[test]
fn a_registry_whose_records_were_emptied_is_refused_by_runs_verify_and_export() {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let config = small();
    land(&fake, &config, &gate_run(1, 7), Reads::Since(None));
    seal_past(&fake, &config, 1);
    // Someone empties the records (and the ids issued), leaving the segment files.
    let bytes = fake
        .file_at(BRANCH, common::TRAIL_REGISTRY)
        .expect("registry");
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = dir.path().join(".skillgate/registry.db");
    std::fs::create_dir_all(registry.parent().expect("dir")).expect("mkdir");
    std::fs::write(&registry, bytes).expect("write");
    Connection::open(&registry)
        .and_then(|c| {
            c.execute_batch(
                "DELETE FROM trail_segments;
                 DELETE FROM sqlite_sequence WHERE name = 'approval_history';",
            )
        })
        .expect("emptied");
    let emptied = std::fs::read(&registry).expect("read");
    fake.commit_files(
        BRANCH,
        &[(common::TRAIL_REGISTRY, &emptied)],
        "records emptied",
    );
    let head = fake.ref_sha(&format!("refs/heads/{BRANCH}"));

    // A run refuses to build on it, and writes nothing.
    let repo = tempfile::tempdir().expect("tempdir");
    let err = audit::connect(&config, &session(&fake), repo.path(), Reads::Since(None))
        .expect_err("refused");
    assert!(
        err.to_string().contains(
            ".skillgate/registry.db records no segment, but .skillgate/trail/000001.db is there"
        ),
        "{err}"
    );
    assert_eq!(fake.ref_sha(&format!("refs/heads/{BRANCH}")), head);

    // A checkout of the branch: verify says it is not intact; export writes nothing.
    let trail = dir.path().join(".skillgate/trail");
    std::fs::create_dir_all(&trail).expect("mkdir");
    for segment in ["000001.db", "000002.db"] {
        if let Some(bytes) = fake.file_at(BRANCH, &format!(".skillgate/trail/{segment}")) {
            std::fs::write(trail.join(segment), bytes).expect("write");
        }
    }
    let mut verify = common::skillgate();
    verify.args(["audit", "verify", "--db"]).arg(&registry);
    let (code, stdout, stderr) = common::run(verify);
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(stdout.contains("000001.db"), "{stdout}");
    let out = dir.path().join("export.db");
    let mut export = common::skillgate();
    export
        .args(["audit", "export", "--db"])
        .arg(&registry)
        .arg("--out")
        .arg(&out);
    let (code, stdout, stderr) = common::run(export);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("it records no segment, but"), "{stderr}");
    assert!(!out.exists());
}
