//! `.skillgate.toml` → a typed [`Config`] whose defaults are the seed's numbers.
//!
//! Every key is optional. An unknown key, a wrong type or a value out of range is an error that
//! names the key and its line.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

pub mod audit;
mod fail_on;
pub mod routing;

pub use audit::{
    AuditConfig, CommitMode, DEFAULT_SEGMENT_SIZE, MAX_SEGMENT_SIZE, MIN_SEGMENT_SIZE,
};
pub use fail_on::FailOn;
pub use routing::{Route, Routing};

/// The file looked for at the repository root.
pub const FILE_NAME: &str = ".skillgate.toml";

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    pub skills: SkillsConfig,
    pub runner: RunnerConfig,
    pub policy: PolicyConfig,
    pub lint: LintConfig,
    pub routing: Routing,
    pub audit: AuditConfig,
}

/// `[lint]`: how strictly `SKILL.md` files are read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct LintConfig {
    /// Only the Agent Skills spec's top-level fields (`name`, `description`, `license`,
    /// `compatibility`, `allowed-tools`, `metadata`): any other is an error, as the reference
    /// validator has it. Off by default: real repositories add fields of their own.
    pub strict: bool,
}

/// `[skills]`: where skills live.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct SkillsConfig {
    /// Skill roots, relative to the repository; `**/` matches at any depth. A skill is a
    /// directory below a root holding a `SKILL.md` (`discover::Layout::place`); a root of `.`
    /// makes the repository itself a skill (a skill repository cloned into
    /// `~/.claude/skills/<name>`), holding whatever skills the other roots find.
    pub roots: Vec<String>,
    /// Paths (globs) never searched for skills: a directory, or one `SKILL.md`.
    pub ignore: Vec<String>,
}

impl Default for SkillsConfig {
    /// Every directory named `skills`, at any depth: `.claude/skills`, `skills`, a
    /// marketplace's `plugins/<plugin>/skills`, a monorepo's `packages/<x>/skills`, the
    /// `.codex`/`.github`/`.agents` ones. `**/skills` covers them all; the others are listed
    /// so that the layouts read from the config. Test, template and vendored directories are
    /// no roots through a wildcard (`discover::Layout::place`).
    fn default() -> Self {
        Self {
            roots: vec![
                ".claude/skills".to_owned(),
                "skills".to_owned(),
                "**/.claude/skills".to_owned(),
                "plugins/*/skills".to_owned(),
                "**/skills".to_owned(),
            ],
            ignore: Vec::new(),
        }
    }
}

/// More re-runs than this hide a broken suite rather than a flaky test.
pub const MAX_RETRIES: u8 = 5;

/// `[runner]`: how suites run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunnerConfig {
    /// Suites run at once; `None` means the number of cores.
    pub jobs: Option<u16>,
    /// Per-suite time limit.
    #[serde(deserialize_with = "duration")]
    pub timeout: Duration,
    /// Re-runs of a failed suite; a test that fails and then passes is flaky.
    pub retries: u8,
    /// Bytes kept of each of a suite's stdout and stderr (head and tail).
    #[serde(deserialize_with = "byte_size")]
    pub output_cap: u64,
    /// Environment variables a suite sees besides the runner's allowlist (`PATH`, the locale,
    /// `CI`, `SKILLGATE_*`, the GitHub run's descriptive variables, toolchain locations; see
    /// `runner::scrubbed_env`), by exact name. They pass even when they look like secrets or
    /// hold a URL with a password: naming one is the config's choice to hand it to every suite.
    pub env_allow: Vec<String>,
    /// Variables of the allowlist that must not reach a suite here (`["JAVA_HOME"]`), unless
    /// `env-allow` names them too. Anything not allowed never reaches a suite anyway.
    pub secret_env: Vec<String>,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        Self {
            jobs: None,
            timeout: Duration::from_secs(10 * 60),
            retries: 0,
            output_cap: 16 * 1024 * 1024,
            env_allow: Vec::new(),
            secret_env: Vec::new(),
        }
    }
}

/// `[policy]`: the thresholds of the three tiers (DESIGN.md "Deciding").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct PolicyConfig {
    /// The pass rate a skill needs unless its frontmatter sets its own.
    pub required_test_pass_rate: f64,
    /// How skipped tests count: `count` (in the total, so skipping a failure does not raise the
    /// rate) or `exclude` (left out of the total).
    pub skips: SkipHandling,
    /// Whether `publish` takes a pull request's test results on the word of the job that ran
    /// its code, for a skill the pull request changed: `escalate` (an expert looks) or `trust`.
    /// Unset: `escalate` for a fork's pull request, `trust` for one from a branch of the
    /// repository (whose author can push to it anyway).
    pub self_reported_tests: Option<SelfReported>,
    /// The seed's gradual rollout: `warn`, `escalate` or `enforce`.
    pub mode: Mode,
    pub auto: AutoThresholds,
    pub human: HumanThresholds,
    /// How the risk score weighs its parts; they add up to 1.
    pub risk_weights: RiskWeights,
    /// Skills whose `category` is one of these are critical (a part of the risk score).
    pub critical_categories: Vec<String>,
    /// Per skill `category`: thresholds and mode that replace the ones above.
    pub categories: std::collections::BTreeMap<String, CategoryPolicy>,
    /// The best tier a skill of this policy's category can get, and who said so (a category
    /// template, or `[policy.categories.NAME]`); set per category, never in `[policy]` itself.
    #[serde(skip)]
    pub approval_level: Option<(crate::skill::Tier, String)>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            required_test_pass_rate: 0.95,
            skips: SkipHandling::Count,
            self_reported_tests: None,
            mode: Mode::Enforce,
            auto: AutoThresholds::default(),
            human: HumanThresholds::default(),
            risk_weights: RiskWeights::default(),
            critical_categories: [
                "security",
                "auth",
                "payments",
                "infrastructure",
                "deployment",
                "database",
            ]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
            categories: std::collections::BTreeMap::new(),
            approval_level: None,
        }
    }
}

impl PolicyConfig {
    /// The policy for a skill of `category`: its `[policy.categories.NAME]` over this one.
    pub fn for_category(&self, category: Option<&str>) -> PolicyConfig {
        self.for_category_over(category, None)
    }

    /// The policy for a skill of `category`: these thresholds, then its category `template`
    /// (named), then its `[policy.categories.NAME]`.
    pub fn for_category_over(
        &self,
        category: Option<&str>,
        template: Option<(&str, &CategoryPolicy)>,
    ) -> PolicyConfig {
        let mut policy = self.clone();
        if let Some((name, template)) = template {
            policy.apply(template, &format!("template {name}"));
        }
        // Categories are compared without case: `Backend` is `backend`.
        if let Some((name, over)) = category.and_then(|c| {
            self.categories
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(c))
        }) {
            policy.apply(over, &format!("[policy.categories.{name}]"));
        }
        policy
    }

    /// What `over` sets replaces what this policy has; `source` names it for reasons.
    fn apply(&mut self, over: &CategoryPolicy, source: &str) {
        let policy = self;
        if let Some(level) = over.approval_level {
            policy.approval_level = Some((level, source.to_owned()));
        }
        if let Some(rate) = over.required_test_pass_rate {
            policy.required_test_pass_rate = rate;
        }
        if let Some(mode) = over.mode {
            policy.mode = mode;
        }
        let auto = &over.auto;
        policy.auto.coverage = auto.coverage.unwrap_or(policy.auto.coverage);
        policy.auto.risk = auto.risk.unwrap_or(policy.auto.risk);
        policy.auto.complexity = auto.complexity.unwrap_or(policy.auto.complexity);
        policy.auto.dependencies = auto.dependencies.unwrap_or(policy.auto.dependencies);
        let human = &over.human;
        policy.human.coverage = human.coverage.unwrap_or(policy.human.coverage);
        policy.human.pass_rate = human.pass_rate.unwrap_or(policy.human.pass_rate);
        policy.human.risk = human.risk.unwrap_or(policy.human.risk);
        policy.human.complexity = human.complexity.unwrap_or(policy.human.complexity);
        policy.human.dependencies = human.dependencies.unwrap_or(policy.human.dependencies);
    }
}

/// The seed's gradual enforcement (its migration phase 4): `warn` approves and lists what
/// would have applied, `escalate` sends what would need a maintainer to an expert instead,
/// `enforce` decides as the tables say. A hardcoded secret or an invalid `SKILL.md` needs
/// correction in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Warn,
    Escalate,
    Enforce,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warn => "warn",
            Self::Escalate => "escalate",
            Self::Enforce => "enforce",
        }
    }
}

/// `[policy.risk-weights]`: DESIGN.md's defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RiskWeights {
    pub security: f64,
    pub complexity: f64,
    pub coverage: f64,
    pub dependencies: f64,
    pub criticality: f64,
}

impl Default for RiskWeights {
    fn default() -> Self {
        Self {
            security: 0.35,
            complexity: 0.25,
            coverage: 0.20,
            dependencies: 0.15,
            criticality: 0.05,
        }
    }
}

impl RiskWeights {
    fn sum(&self) -> f64 {
        self.security + self.complexity + self.coverage + self.dependencies + self.criticality
    }
}

/// `[policy.categories.NAME]`: what differs for skills of one `category`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CategoryPolicy {
    pub mode: Option<Mode>,
    /// The best tier a skill of the category can get: `escalate` sends every one to an expert.
    pub approval_level: Option<crate::skill::Tier>,
    pub required_test_pass_rate: Option<f64>,
    pub auto: CategoryAuto,
    pub human: CategoryHuman,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CategoryAuto {
    pub coverage: Option<f64>,
    pub risk: Option<f64>,
    pub complexity: Option<u32>,
    pub dependencies: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CategoryHuman {
    pub coverage: Option<f64>,
    pub pass_rate: Option<f64>,
    pub risk: Option<f64>,
    pub complexity: Option<u32>,
    pub dependencies: Option<u32>,
}

/// `[policy] self-reported-tests`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelfReported {
    Escalate,
    Trust,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipHandling {
    Count,
    Exclude,
}

/// `[policy.auto]`: what auto approval needs, at least or at most.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct AutoThresholds {
    /// Minimum measured line coverage.
    pub coverage: f64,
    /// Maximum risk score.
    pub risk: f64,
    /// Maximum cyclomatic complexity of the skill's most complex function.
    pub complexity: u32,
    /// Maximum external dependencies.
    pub dependencies: u32,
}

impl Default for AutoThresholds {
    fn default() -> Self {
        Self {
            coverage: 0.95,
            risk: 0.30,
            complexity: 5,
            dependencies: 0,
        }
    }
}

/// `[policy.human]`: below (or above) these a maintainer must review.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct HumanThresholds {
    /// Coverage below this needs a maintainer.
    pub coverage: f64,
    /// A pass rate below this needs a maintainer.
    pub pass_rate: f64,
    /// A risk score above this needs a maintainer.
    pub risk: f64,
    /// A complexity above this needs a maintainer.
    pub complexity: u32,
    /// More external dependencies than this need a maintainer.
    pub dependencies: u32,
}

impl Default for HumanThresholds {
    fn default() -> Self {
        Self {
            coverage: 0.80,
            pass_rate: 0.80,
            risk: 0.60,
            complexity: 15,
            dependencies: 3,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("failed to read config {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid config {}{}: {message}", path.display(), Line(*line))]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        /// The dotted key at fault, when known.
        key: Option<String>,
        message: String,
    },
}

impl ConfigError {
    pub fn help(&self) -> Option<&str> {
        match self {
            Self::Invalid { message, .. } if message.contains("unknown field") => {
                Some("keys are kebab-case; see the README's configuration section for every key")
            }
            _ => None,
        }
    }
}

/// `:LINE` when the line is known.
struct Line(Option<usize>);

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(line) => write!(f, ":{line}"),
            None => Ok(()),
        }
    }
}

impl Config {
    /// Load `path` if given, else `<repo>/.skillgate.toml` if it exists, else the defaults.
    pub fn load(repo: &Path, path: Option<&Path>) -> Result<Self, ConfigError> {
        let (path, required) = match path {
            Some(path) => (path.to_path_buf(), true),
            None => (repo.join(FILE_NAME), false),
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if !required && err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default());
            }
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        Self::parse(&text, &path)
    }

    /// Parse config text; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|err| {
            let line = err.span().map(|span| line_of_offset(text, span.start));
            let key = line.and_then(|l| key_at_line(text, l));
            let message = err.message().trim();
            // "unknown field `timout`" names its key already; a type error does not.
            let message = match &key {
                Some(key) if !message.contains("unknown field") => format!("`{key}`: {message}"),
                _ => message.to_owned(),
            };
            ConfigError::Invalid {
                path: path.to_path_buf(),
                line,
                key,
                message,
            }
        })?;
        config.validate(text, path)?;
        Ok(config)
    }

    fn validate(&self, text: &str, path: &Path) -> Result<(), ConfigError> {
        let fractions = [
            (
                "policy",
                "required-test-pass-rate",
                self.policy.required_test_pass_rate,
            ),
            ("policy.auto", "coverage", self.policy.auto.coverage),
            ("policy.auto", "risk", self.policy.auto.risk),
            ("policy.human", "coverage", self.policy.human.coverage),
            ("policy.human", "pass-rate", self.policy.human.pass_rate),
            ("policy.human", "risk", self.policy.human.risk),
            (
                "policy.risk-weights",
                "security",
                self.policy.risk_weights.security,
            ),
            (
                "policy.risk-weights",
                "complexity",
                self.policy.risk_weights.complexity,
            ),
            (
                "policy.risk-weights",
                "coverage",
                self.policy.risk_weights.coverage,
            ),
            (
                "policy.risk-weights",
                "dependencies",
                self.policy.risk_weights.dependencies,
            ),
            (
                "policy.risk-weights",
                "criticality",
                self.policy.risk_weights.criticality,
            ),
        ];
        for (table, key, value) in fractions {
            if !(0.0..=1.0).contains(&value) {
                return Err(invalid(
                    text,
                    path,
                    table,
                    key,
                    format!("`{table}.{key}` must be between 0.0 and 1.0, not {value}"),
                ));
            }
        }
        let names: Vec<Option<&str>> = std::iter::once(None)
            .chain(self.policy.categories.keys().map(|k| Some(k.as_str())))
            .collect();
        for name in names {
            let policy = self.policy.for_category(name);
            let (auto, human) = (&policy.auto, &policy.human);
            let table = name.map_or("policy".to_owned(), |n| format!("policy.categories.{n}"));
            let loose = if auto.coverage < human.coverage {
                Some(("coverage", "auto.coverage must be at least human.coverage"))
            } else if auto.risk > human.risk {
                Some(("risk", "auto.risk must be at most human.risk"))
            } else if auto.complexity > human.complexity {
                Some((
                    "complexity",
                    "auto.complexity must be at most human.complexity",
                ))
            } else if auto.dependencies > human.dependencies {
                Some((
                    "dependencies",
                    "auto.dependencies must be at most human.dependencies",
                ))
            } else {
                None
            };
            if let Some((key, rule)) = loose {
                return Err(invalid(
                    text,
                    path,
                    &format!("{table}.auto"),
                    key,
                    format!("`{table}`: {rule}, or the escalate band is empty"),
                ));
            }
        }
        if (self.policy.risk_weights.sum() - 1.0).abs() > 1e-6 {
            return Err(invalid(
                text,
                path,
                "policy.risk-weights",
                "security",
                format!(
                    "`policy.risk-weights` must add up to 1, not {}",
                    self.policy.risk_weights.sum()
                ),
            ));
        }
        for (name, category) in &self.policy.categories {
            let table = format!("policy.categories.{name}");
            let fractions = [
                ("required-test-pass-rate", category.required_test_pass_rate),
                ("auto.coverage", category.auto.coverage),
                ("auto.risk", category.auto.risk),
                ("human.coverage", category.human.coverage),
                ("human.pass-rate", category.human.pass_rate),
                ("human.risk", category.human.risk),
            ];
            for (key, value) in fractions {
                if let Some(value) = value
                    && !(0.0..=1.0).contains(&value)
                {
                    return Err(invalid(
                        text,
                        path,
                        &table,
                        key.rsplit('.').next().unwrap_or(key),
                        format!("`{table}.{key}` must be between 0.0 and 1.0, not {value}"),
                    ));
                }
            }
        }
        if self.runner.timeout.is_zero() {
            return Err(invalid(
                text,
                path,
                "runner",
                "timeout",
                "`runner.timeout` must be longer than zero".to_owned(),
            ));
        }
        if self.runner.retries > MAX_RETRIES {
            return Err(invalid(
                text,
                path,
                "runner",
                "retries",
                format!(
                    "`runner.retries` must be at most {MAX_RETRIES}, not {}",
                    self.runner.retries
                ),
            ));
        }
        if let Some((key, message)) = self.routing.problem() {
            return Err(invalid(text, path, "routing", key, message));
        }
        if let Some((key, message)) = self.audit.problem() {
            return Err(invalid(text, path, "audit", key, message));
        }
        if self.runner.jobs == Some(0) {
            return Err(invalid(
                text,
                path,
                "runner",
                "jobs",
                "`runner.jobs` must be at least 1".to_owned(),
            ));
        }
        Ok(())
    }
}

fn invalid(text: &str, path: &Path, table: &str, key: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line: find_key_line(text, table, key),
        key: Some(format!("{table}.{key}")),
        message,
    }
}

/// 1-based line of a byte offset.
fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The dotted key assigned on a line (`[table]` headers tracked), for messages.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if let Some(header) = table_header(trimmed) {
            table = header.to_owned();
        }
        if i + 1 == line {
            let key = trimmed.split('=').next()?.trim();
            if key.is_empty() || key.starts_with('[') {
                return (!table.is_empty()).then_some(table);
            }
            return Some(if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            });
        }
    }
    None
}

/// The line of `key = …` inside `[table]` (or a dotted `table.key = …` at the top).
fn find_key_line(text: &str, table: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if let Some(header) = table_header(trimmed) {
            current = header.to_owned();
            continue;
        }
        let Some((lhs, _)) = trimmed.split_once('=') else {
            continue;
        };
        let lhs = lhs.trim();
        let full = if current.is_empty() {
            lhs.to_owned()
        } else {
            format!("{current}.{lhs}")
        };
        if full == format!("{table}.{key}") {
            return Some(i + 1);
        }
    }
    None
}

fn table_header(line: &str) -> Option<&str> {
    let inner = line.strip_prefix('[')?.split(']').next()?;
    Some(inner.trim_matches(|c| c == '[' || c == ' '))
}

fn duration<'de, D: Deserializer<'de>>(de: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(de)?;
    humantime::parse_duration(&text).map_err(|err| {
        serde::de::Error::custom(format!(
            "invalid duration {text:?} ({err}); write it with a unit, like \"90s\" or \"10m\""
        ))
    })
}

fn byte_size<'de, D: Deserializer<'de>>(de: D) -> Result<u64, D::Error> {
    let text = String::deserialize(de)?;
    parse_byte_size(&text).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "invalid size {text:?}; write it with a unit, like \"512KiB\", \"16MiB\" or \"1GB\""
        ))
    })
}

/// `16MiB`, `512 KiB`, `1GB`, `4096B` → bytes.
pub fn parse_byte_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits.parse().ok()?;
    let factor: u64 = match unit.trim() {
        "B" => 1,
        "KB" | "kB" => 1_000,
        "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new(".skillgate.toml"))
    }

    #[test]
    fn empty_config_has_the_seed_defaults() {
        let config = parse("").expect("empty config is valid");
        assert_eq!(config, Config::default());
        assert_eq!(config.policy.required_test_pass_rate, 0.95);
        assert_eq!(config.policy.auto.coverage, 0.95);
        assert_eq!(config.policy.auto.risk, 0.30);
        assert_eq!(config.policy.human.coverage, 0.80);
        assert_eq!(config.policy.human.pass_rate, 0.80);
        assert_eq!(config.policy.human.risk, 0.60);
        assert_eq!(config.runner.timeout, Duration::from_secs(600));
        assert_eq!(config.runner.output_cap, 16 << 20);
    }

    #[test]
    fn values_are_read_with_units() {
        let config = parse(
            "[runner]\njobs = 3\ntimeout = \"90s\"\nretries = 2\noutput-cap = \"512KiB\"\n\n[policy]\nrequired-test-pass-rate = 0.9\nskips = \"exclude\"\n[policy.auto]\ncoverage = 0.9\n",
        )
        .expect("valid config");
        assert_eq!(config.runner.jobs, Some(3));
        assert_eq!(config.runner.timeout, Duration::from_secs(90));
        assert_eq!(config.runner.retries, 2);
        assert_eq!(config.runner.output_cap, 512 * 1024);
        assert_eq!(config.policy.required_test_pass_rate, 0.9);
        assert_eq!(config.policy.skips, SkipHandling::Exclude);
        assert_eq!(config.policy.auto.coverage, 0.9);
        assert_eq!(
            config.policy.auto.risk, 0.30,
            "untouched keys keep defaults"
        );
    }

    #[test]
    fn unknown_key_names_the_key_and_the_line() {
        let err = parse("[runner]\njobs = 2\ntimout = \"5m\"\n").expect_err("typo is an error");
        let ConfigError::Invalid {
            line, key, message, ..
        } = &err
        else {
            panic!("unexpected error {err:?}");
        };
        assert_eq!(*line, Some(3));
        assert_eq!(key.as_deref(), Some("runner.timout"));
        assert!(message.contains("unknown field `timout`"), "{message}");
        assert!(
            err.to_string()
                .starts_with("invalid config .skillgate.toml:3: ")
        );
        assert!(err.help().is_some());
    }

    #[test]
    fn wrong_type_names_the_line() {
        let err = parse("[policy]\n\nrequired-test-pass-rate = \"high\"\n").expect_err("string");
        let ConfigError::Invalid { line, key, .. } = &err else {
            panic!("unexpected error {err:?}");
        };
        assert_eq!(*line, Some(3));
        assert_eq!(key.as_deref(), Some("policy.required-test-pass-rate"));
        assert_eq!(
            err.to_string(),
            "invalid config .skillgate.toml:3: `policy.required-test-pass-rate`: invalid type: string \"high\", expected f64"
        );
        let err = parse("[runner]\njobs = \"four\"\n").expect_err("string jobs");
        assert!(
            err.to_string()
                .starts_with("invalid config .skillgate.toml:2: `runner.jobs`: invalid type"),
            "{err}"
        );
    }

    #[test]
    fn out_of_range_fraction_names_key_and_line() {
        let err = parse("[policy.human]\ncoverage = 80\n").expect_err("80 is not a fraction");
        assert_eq!(
            err.to_string(),
            "invalid config .skillgate.toml:2: `policy.human.coverage` must be between 0.0 and 1.0, not 80"
        );
    }

    #[test]
    fn bad_duration_and_size_are_explained() {
        let err = parse("[runner]\nretries = 9\n").expect_err("too many retries");
        assert!(
            err.to_string()
                .contains(":2: `runner.retries` must be at most 5, not 9"),
            "{err}"
        );
        let err = parse("[runner]\ntimeout = \"ten minutes\"\n").expect_err("bad duration");
        assert!(
            err.to_string()
                .contains(":2: `runner.timeout`: invalid duration"),
            "{err}"
        );
        let err = parse("[runner]\noutput-cap = \"16M\"\n").expect_err("bad size");
        assert!(
            err.to_string()
                .contains(":2: `runner.output-cap`: invalid size"),
            "{err}"
        );
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_byte_size("16MiB"), Some(16 << 20));
        assert_eq!(parse_byte_size("1 GB"), Some(1_000_000_000));
        assert_eq!(parse_byte_size("12"), None);
        assert_eq!(parse_byte_size("99999999999999GiB"), None);
    }
}

#[cfg(test)]
mod lint_tests {
    use super::*;

    #[test]
    fn lint_is_lenient_unless_strict_and_rejects_unknown_keys() {
        let path = Path::new(".skillgate.toml");
        assert!(!Config::parse("", path).expect("empty").lint.strict);
        let config = Config::parse("[lint]\nstrict = true\n", path).expect("strict");
        assert_eq!(config.lint, LintConfig { strict: true });
        let err = Config::parse("[lint]\nstrict = true\npedantic = true\n", path)
            .expect_err("unknown key");
        assert!(
            err.to_string()
                .starts_with("invalid config .skillgate.toml:3: unknown field `pedantic`"),
            "{err}"
        );
        let err = Config::parse("[lint]\nstrict = \"yes\"\n", path).expect_err("not a bool");
        assert!(err.to_string().contains(":2: `lint.strict`"), "{err}");
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new(".skillgate.toml"))
    }

    #[test]
    fn categories_replace_what_they_name_and_keep_the_rest() {
        let config = parse(
            "[policy]\nmode = \"escalate\"\n\n[policy.auto]\ncomplexity = 6\n\n\
             [policy.categories.backend]\nmode = \"warn\"\nrequired-test-pass-rate = 0.9\n\
             auto = { coverage = 0.90, complexity = 10 }\nhuman = { dependencies = 5 }\n",
        )
        .expect("valid");
        let base = config.policy.for_category(None);
        assert_eq!(base.mode, Mode::Escalate);
        assert_eq!((base.auto.coverage, base.auto.complexity), (0.95, 6));
        let backend = config.policy.for_category(Some("backend"));
        assert_eq!(backend.mode, Mode::Warn);
        assert_eq!(backend.required_test_pass_rate, 0.9);
        assert_eq!((backend.auto.coverage, backend.auto.complexity), (0.90, 10));
        assert_eq!((backend.auto.risk, backend.human.dependencies), (0.30, 5));
        assert_eq!(backend.human.complexity, 15);
        assert_eq!(config.policy.for_category(Some("other")), base);
        assert_eq!(config.policy.for_category(Some("Backend")), backend);
    }

    #[test]
    fn a_template_sits_between_the_policy_and_the_category() {
        let config = parse(
            "[policy.auto]\nrisk = 0.25\n\n[policy.categories.frontend]\napproval-level = \"human\"\n\
             auto = { coverage = 0.85 }\n",
        )
        .expect("valid");
        let template = CategoryPolicy {
            approval_level: Some(crate::skill::Tier::Escalate),
            required_test_pass_rate: Some(0.80),
            auto: CategoryAuto {
                coverage: Some(0.80),
                complexity: Some(8),
                ..CategoryAuto::default()
            },
            ..CategoryPolicy::default()
        };
        let frontend = config
            .policy
            .for_category_over(Some("frontend"), Some(("Frontend", &template)));
        assert_eq!(frontend.required_test_pass_rate, 0.80, "the template's");
        assert_eq!(frontend.auto.complexity, 8, "the template's");
        assert_eq!(
            frontend.auto.coverage, 0.85,
            "the config's, over the template's"
        );
        assert_eq!(
            frontend.auto.risk, 0.25,
            "the config's [policy], under the template"
        );
        assert_eq!(
            frontend.approval_level,
            Some((
                crate::skill::Tier::Human,
                "[policy.categories.frontend]".to_owned()
            ))
        );
        let err = parse("[policy.categories.x]\napproval-level = \"sometimes\"\n")
            .expect_err("unknown tier");
        assert!(
            err.to_string()
                .contains(":2: `policy.categories.x.approval-level`"),
            "{err}"
        );
    }

    #[test]
    fn auto_thresholds_are_never_looser_than_human_ones() {
        let err = parse("[policy.auto]\nrisk = 0.7\n").expect_err("auto above human");
        assert!(
            err.to_string()
                .contains("`policy`: auto.risk must be at most human.risk"),
            "{err}"
        );
        let err = parse("[policy.categories.x]\nhuman = { complexity = 3 }\n")
            .expect_err("category human below auto");
        assert!(
            err.to_string().contains(
                "`policy.categories.x`: auto.complexity must be at most human.complexity"
            ),
            "{err}"
        );
    }

    #[test]
    fn defaults_are_designs_numbers() {
        let policy = PolicyConfig::default();
        assert_eq!(policy.mode, Mode::Enforce);
        assert_eq!((policy.auto.complexity, policy.auto.dependencies), (5, 0));
        assert_eq!(
            (policy.human.complexity, policy.human.dependencies),
            (15, 3)
        );
        assert_eq!(policy.risk_weights, RiskWeights::default());
        assert!((policy.risk_weights.sum() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn weights_must_add_up_and_fractions_stay_fractions() {
        let err = parse("[policy.risk-weights]\nsecurity = 0.5\n").expect_err("sum 1.15");
        assert!(
            err.to_string()
                .contains("`policy.risk-weights` must add up to 1, not 1.15"),
            "{err}"
        );
        let err = parse("[policy.categories.x]\nrequired-test-pass-rate = 1.5\n")
            .expect_err("out of range");
        assert!(
            err.to_string().contains(
                "`policy.categories.x.required-test-pass-rate` must be between 0.0 and 1.0, not 1.5"
            ),
            "{err}"
        );
        let err = parse("[policy]\nmode = \"strict\"\n").expect_err("unknown mode");
        assert!(err.to_string().contains(":2: `policy.mode`"), "{err}");
    }
}
