//! Running the gated skills' suites: each once, in a workspace of its own, then the failed ones
//! again while retries last.

use std::path::Path;
use std::sync::Arc;

use crate::changes::ChangeKind;
use crate::config::Config;
use crate::discover::SkillDir;
use crate::error::Error;
use crate::runner::Progress;
use crate::runner::{self, Job};
use crate::suite::{REPORT_DIR, Resolution, Suite};

use super::attempt::{self, Attempt};
use super::prepare::Prepared;

/// What the suites' runs left: each prepared skill's attempts (none when it had no suite to
/// run), and the settings they ran under.
pub struct Ran {
    pub attempts: Vec<Vec<Attempt>>,
    pub settings: runner::Settings,
}

/// Run the suite of every prepared skill that has one, each in a place of its own; `jobs` is
/// `--jobs`. `progress` hears of each suite as it starts and ends.
pub fn run_suites(
    repo: &Path,
    prepared: &[Prepared],
    config: &Config,
    jobs: Option<u16>,
    progress: &Arc<dyn Progress>,
) -> Result<Ran, Error> {
    // Each attempt's files sit under a random name, in a parent no suite may list.
    let workspace = runner::Workspace::new()?;
    let suites: Vec<(usize, &Suite)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.resolution {
            Resolution::Found(suite) if p.change.kind != ChangeKind::Deleted => Some((i, suite)),
            _ => None,
        })
        .collect();
    let settings = runner::Settings {
        jobs: jobs
            .or(config.runner.jobs)
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        timeout: config.runner.timeout,
        output_cap: config.runner.output_cap,
        env: runner::scrubbed_env(
            std::env::vars_os(),
            &config.runner.secret_env,
            &config.runner.env_allow,
        ),
    };
    // Every suite once, then the failed ones again while retries last.
    let mut attempts: Vec<Vec<Attempt>> = prepared.iter().map(|_| Vec::new()).collect();
    let mut pending: Vec<(usize, &Suite)> = suites;
    for number in 1..=1 + u32::from(config.runner.retries) {
        if pending.is_empty() {
            break;
        }
        let batch: Vec<Job> = pending
            .iter()
            .map(|(i, suite)| {
                let place = workspace.place()?;
                let p = &prepared[*i];
                let label = if number == 1 {
                    p.name.clone()
                } else {
                    format!("{} (attempt {number})", p.name)
                };
                Ok(job(label, repo, &place, &p.change.skill, suite))
            })
            .collect::<Result<_, runner::RunnerError>>()?;
        let finished = runner::run_all(batch.clone(), &settings, progress)?;
        // A suite that went looking for the others' directories: no report can be trusted.
        workspace.intact()?;
        for (((i, _), job), done) in pending.iter().zip(&batch).zip(finished) {
            let p = &prepared[*i];
            let skill_dir = repo.join(&p.change.skill.dir);
            let read = attempt::read(
                repo,
                &skill_dir,
                &p.meta,
                job,
                done,
                settings.timeout,
                &attempts[*i],
            );
            attempts[*i].push(read);
        }
        pending.retain(|(i, _)| attempts[*i].last().is_some_and(Attempt::worth_retrying));
    }
    // A signal while the last round's results were read: nothing is recorded.
    if let Some(name) = runner::interrupted() {
        return Err(runner::RunnerError::Interrupted(name).into());
    }
    Ok(Ran { attempts, settings })
}

/// One run of a suite, its files under `base`.
fn job(label: String, repo: &Path, base: &Path, skill: &SkillDir, suite: &Suite) -> Job {
    let report_dir = base.join("reports");
    Job {
        label,
        program: suite.program.clone(),
        // A detected framework is told to write its reports there.
        args: suite
            .args
            .iter()
            .map(|arg| arg.replace(REPORT_DIR, &report_dir.to_string_lossy()))
            .collect(),
        cwd: repo.join(&skill.dir),
        report_dir,
        stdout: base.join("stdout.log"),
        stderr: base.join("stderr.log"),
    }
}
