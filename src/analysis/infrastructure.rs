//! Infrastructure changes in a skill: files that define infrastructure, commands that change it,
//! and `allowed-tools` that hand the agent a shell. Any of it is escalated to DevOps.
//!
//! The rules:
//! - **files** (by path and, for YAML and JSON, by content): Dockerfiles and Containerfiles,
//!   Compose files, Terraform (`*.tf`, `*.tf.json`, `*.tfvars`, `terragrunt.hcl`), Kubernetes
//!   manifests (YAML with top-level `apiVersion:` and `kind:`), Kustomize, Helm charts,
//!   CloudFormation/SAM templates, Ansible playbooks, Pulumi and Serverless projects, and CI
//!   definitions: GitHub Actions workflows and actions, GitLab CI, CircleCI, Azure Pipelines,
//!   Bitbucket Pipelines, Travis, Buildkite, Jenkinsfiles. Files of the skill's test suite
//!   (under `tests/`, `fixtures/`, …) are data for the suite, not infrastructure: they do not count.
//! - **commands** that change infrastructure (over the code lines of [`super::code_lines`]):
//!   `terraform|tofu|terragrunt apply|destroy|import|taint|state`, `kubectl|oc apply|create|
//!   delete|patch|replace|scale|rollout|set|edit|label|annotate|drain|cordon|taint|expose|run|
//!   autoscale`, `helm install|upgrade|uninstall|delete|rollback`, `pulumi up|destroy`,
//!   `cdk|sam|serverless|sls deploy|destroy|remove`, `ansible-playbook`, `docker|podman push`,
//!   `docker stack|service|swarm`, `aws <service> create-*|delete-*|update-*|put-*|run-*|…` (not
//!   the data services `s3`, `s3api`, `dynamodb`, `sqs`, `sns`, `logs`), `gcloud …
//!   create|delete|deploy|update|*-iam-policy*`, `az … create|delete|update|deploy`,
//!   `gh secret|variable set|delete`, `gh workflow run|enable|disable`, `systemctl start|stop|
//!   restart|reload|enable|disable|mask|daemon-reload|…` (not `status`, `show`, `list-*`),
//!   `service NAME start|stop|restart|reload|force-reload`.
//! - **allowed-tools** granting a shell: `Bash`, `Shell`, `Terminal`, `PowerShell` (any case)
//!   without a restriction, with a wildcard one (`Bash(*)`, `Bash(:*)`), or restricted to an
//!   infrastructure CLI (`Bash(kubectl:*)`, `Bash(terraform apply)`). `Bash(git status:*)` grants
//!   one harmless command, not a shell.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Sources;
use super::code_lines::code_lines;
use super::evidence::Evidence;
use super::line_commands::{Command, for_each_command};
use super::paths::{base_name, is_test_path};
use super::{code_lines, evidence, line_commands, paths};
use crate::skill::SkillMeta;

/// What in a skill changes infrastructure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Infrastructure {
    /// In file and line order; one per (what, file).
    pub found: Vec<Evidence>,
}

const SHOWN: usize = 5;

impl Infrastructure {
    pub fn is_change(&self) -> bool {
        !self.found.is_empty()
    }

    /// `infrastructure change: Dockerfile (Dockerfile:1), kubectl apply (deploy.sh:4)`.
    pub fn reason(&self) -> Option<String> {
        (!self.found.is_empty()).then(|| {
            format!(
                "infrastructure change: {}",
                evidence::located(&self.found, SHOWN)
            )
        })
    }
}

/// Find the infrastructure changes in a skill.
pub fn analyze(sources: &Sources, meta: &SkillMeta) -> Infrastructure {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for source in &sources.files {
        if is_test_path(&source.path) && !source.run_by_skill {
            continue;
        }
        if let Some((what, line)) = infrastructure_file(&source.path, &source.text) {
            evidence::push_once(
                &mut found,
                &mut seen,
                Evidence::new(what, &source.path, line),
            );
        }
        for line in code_lines(source) {
            for_each_command(&line, |command| {
                if let Some(what) = infrastructure_command(command) {
                    evidence::push_once(
                        &mut found,
                        &mut seen,
                        Evidence::new(what, &source.path, line.number),
                    );
                }
            });
        }
    }
    let skill_file = sources.files.iter().find(|s| paths::is_skill_file(&s.path));
    for grant in &meta.allowed_tools {
        if let Some(grant) = shell_grant(grant) {
            let (file, line) = match skill_file {
                Some(source) => (
                    source.path.as_str(),
                    code_lines::frontmatter_line(&source.text, &["allowed-tools", "allowed_tools"])
                        .unwrap_or(1),
                ),
                None => ("SKILL.md", 1),
            };
            evidence::push_once(
                &mut found,
                &mut seen,
                Evidence::new(format!("allowed-tools grants {grant}"), file, line),
            );
        }
    }
    found.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Infrastructure { found }
}

/// What kind of infrastructure file `path` is, and the line that shows it.
fn infrastructure_file(path: &str, text: &str) -> Option<(String, u32)> {
    let name = base_name(path).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let yaml = matches!(ext, "yml" | "yaml");
    let line_starting = |prefixes: &[&str]| -> u32 {
        text.lines()
            .position(|l| prefixes.iter().any(|p| l.trim_start().starts_with(p)))
            .and_then(|i| u32::try_from(i + 1).ok())
            .unwrap_or(1)
    };
    let by_name = if name == "dockerfile"
        || name == "containerfile"
        || name.starts_with("dockerfile.")
        || ext == "dockerfile"
    {
        Some(("Dockerfile", line_starting(&["FROM ", "from "])))
    } else if yaml && (name.starts_with("docker-compose") || name.starts_with("compose.")) {
        Some(("Docker Compose file", line_starting(&["services:"])))
    } else if matches!(ext, "tf" | "tfvars")
        || name.ends_with(".tf.json")
        || name == "terragrunt.hcl"
    {
        Some((
            "Terraform",
            line_starting(&["resource ", "module ", "provider ", "terraform "]),
        ))
    } else if yaml && path.contains(".github/workflows/") {
        Some(("GitHub Actions workflow", line_starting(&["on:", "jobs:"])))
    } else if name == "action.yml" || name == "action.yaml" {
        Some(("GitHub Action", line_starting(&["runs:"])))
    } else if name == ".gitlab-ci.yml" {
        Some(("GitLab CI pipeline", 1))
    } else if yaml && path.contains(".circleci/") {
        Some(("CircleCI config", 1))
    } else if name == "azure-pipelines.yml" || name == "azure-pipelines.yaml" {
        Some(("Azure Pipelines", 1))
    } else if name == "bitbucket-pipelines.yml" {
        Some(("Bitbucket Pipelines", 1))
    } else if name == ".travis.yml" {
        Some(("Travis CI config", 1))
    } else if yaml && path.contains(".buildkite/") {
        Some(("Buildkite pipeline", 1))
    } else if name == "jenkinsfile" {
        Some(("Jenkins pipeline", 1))
    } else if name == "chart.yaml" {
        Some(("Helm chart", 1))
    } else if name == "kustomization.yaml" || name == "kustomization.yml" {
        Some(("Kustomize", 1))
    } else if name == "pulumi.yaml" || name == "pulumi.yml" {
        Some(("Pulumi project", 1))
    } else if name == "serverless.yml" || name == "serverless.yaml" {
        Some(("Serverless Framework", 1))
    } else {
        None
    };
    if let Some((what, line)) = by_name {
        return Some((what.to_owned(), line));
    }
    if yaml || ext == "json" || ext == "template" {
        return by_content(text, yaml);
    }
    None
}

/// Kubernetes, CloudFormation and Ansible files are YAML (or JSON) like any other: known by
/// their keys.
fn by_content(text: &str, yaml: bool) -> Option<(String, u32)> {
    let mut api_version = false;
    let mut kind: Option<(String, u32)> = None;
    let mut hosts = false;
    let mut tasks = false;
    for (i, line) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim_start();
        if trimmed.starts_with("AWSTemplateFormatVersion")
            || trimmed.starts_with("\"AWSTemplateFormatVersion\"")
            || trimmed.starts_with("Transform: AWS::Serverless")
            || trimmed.starts_with("Type: AWS::")
            || trimmed.starts_with("\"Type\": \"AWS::")
        {
            return Some(("CloudFormation template".to_owned(), number));
        }
        if !yaml {
            continue;
        }
        if line.starts_with("apiVersion:") {
            api_version = true;
        }
        if kind.is_none()
            && let Some(value) = line.strip_prefix("kind:")
        {
            let value = line_commands::unquote(value.trim());
            if !value.is_empty() {
                kind = Some((value.to_owned(), number));
            }
        }
        if line.starts_with("- hosts:") {
            hosts = true;
        }
        if trimmed.starts_with("tasks:") || trimmed.starts_with("roles:") {
            tasks = true;
        }
        if api_version && let Some((kind, line)) = &kind {
            return Some((format!("Kubernetes manifest ({kind})"), *line));
        }
    }
    (hosts && tasks).then(|| ("Ansible playbook".to_owned(), 1))
}

/// The infrastructure change a command makes, as `program subcommand`.
fn infrastructure_command(c: &Command<'_>) -> Option<String> {
    let operands: Vec<&str> = c
        .args
        .iter()
        .map(|a| line_commands::unquote(a))
        .filter(|a| !a.starts_with('-'))
        .collect();
    let named = |words: &[&str]| -> String {
        std::iter::once(c.name)
            .chain(words.iter().copied())
            .collect::<Vec<_>>()
            .join(" ")
    };
    // The subcommand among the first two operands (an option's value may come first:
    // `kubectl -n prod apply`).
    let verb = |verbs: &[&str]| -> Option<String> {
        operands
            .iter()
            .take(2)
            .find(|w| verbs.contains(w))
            .map(|w| named(&[w]))
    };
    match c.name {
        "terraform" | "tofu" | "terragrunt" => {
            verb(&["apply", "destroy", "import", "taint", "state"])
        }
        "kubectl" | "oc" => verb(&[
            "apply",
            "create",
            "delete",
            "patch",
            "replace",
            "scale",
            "rollout",
            "set",
            "edit",
            "label",
            "annotate",
            "drain",
            "cordon",
            "uncordon",
            "taint",
            "expose",
            "run",
            "autoscale",
        ]),
        "helm" => verb(&["install", "upgrade", "uninstall", "delete", "rollback"]),
        "pulumi" => verb(&["up", "destroy", "update"]),
        "cdk" | "sam" | "serverless" | "sls" => verb(&["deploy", "destroy", "remove"]),
        "ansible-playbook" => Some(c.name.to_owned()),
        // A host's services: starting, stopping or enabling one changes what the machine runs.
        "systemctl" => verb(&[
            "start",
            "stop",
            "restart",
            "try-restart",
            "reload",
            "reload-or-restart",
            "enable",
            "disable",
            "reenable",
            "mask",
            "unmask",
            "kill",
            "isolate",
            "set-default",
            "set-property",
            "edit",
            "link",
            "preset",
            "daemon-reload",
        ]),
        "service" => verb(&["start", "stop", "restart", "reload", "force-reload"]),
        "docker" | "podman" => match operands.first().copied() {
            Some("stack" | "service" | "swarm") => Some(named(&operands[..operands.len().min(2)])),
            Some("push") => Some(named(&["push"])),
            _ => None,
        },
        "aws" => {
            let (service, op) = (operands.first()?, operands.get(1)?);
            let data_plane = matches!(
                *service,
                "s3" | "s3api" | "dynamodb" | "sqs" | "sns" | "logs" | "kinesis"
            );
            let mutating = [
                "create-",
                "delete-",
                "update-",
                "put-",
                "run-",
                "terminate-",
                "modify-",
                "attach-",
                "detach-",
                "register-",
                "deregister-",
            ]
            .iter()
            .any(|p| op.starts_with(p))
                || *op == "deploy";
            (!data_plane && mutating).then(|| named(&[service, op]))
        }
        "gcloud" | "az" => {
            let verbs: &[&str] = if c.name == "gcloud" {
                &["create", "delete", "deploy", "update", "resize"]
            } else {
                &["create", "delete", "update", "deploy"]
            };
            let at = operands.iter().position(|w| {
                verbs.contains(w) || (c.name == "gcloud" && w.contains("iam-policy"))
            })?;
            Some(named(&operands[..=at]))
        }
        "gh" => {
            let (first, second) = (*operands.first()?, *operands.get(1)?);
            let changes = match first {
                "secret" | "variable" => matches!(second, "set" | "delete" | "remove"),
                "workflow" => matches!(second, "run" | "enable" | "disable"),
                _ => false,
            };
            changes.then(|| named(&[first, second]))
        }
        _ => None,
    }
}

/// Programs that are shells, as `allowed-tools` names them.
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "zsh",
    "terminal",
    "powershell",
    "pwsh",
    "cmd",
    "exec",
    "run_shell_command",
];

/// Infrastructure CLIs: a grant restricted to one of them still changes infrastructure.
const INFRASTRUCTURE_CLIS: &[&str] = &[
    "kubectl",
    "systemctl",
    "service",
    "oc",
    "helm",
    "terraform",
    "tofu",
    "terragrunt",
    "pulumi",
    "docker",
    "podman",
    "aws",
    "gcloud",
    "az",
    "ansible",
    "ansible-playbook",
    "cdk",
    "sam",
    "serverless",
];

/// How an `allowed-tools` entry grants a shell, as written; `None` when it does not.
/// `SkillMeta` keeps `Bash(git status:*)` whole; a list item written without its `)` is read to
/// the end all the same.
fn shell_grant(entry: &str) -> Option<String> {
    let entry = entry.trim();
    let (tool, restriction) = match entry.split_once('(') {
        Some((tool, rest)) => (tool.trim(), Some(rest.trim_end_matches(')').trim())),
        None => (entry, None),
    };
    if !SHELL_TOOLS.contains(&tool.to_ascii_lowercase().as_str()) {
        return None;
    }
    let Some(restriction) = restriction else {
        return Some(tool.to_owned());
    };
    let program = restriction.split([' ', ':']).next().unwrap_or("").trim();
    let unrestricted = program.is_empty() || program.starts_with('*');
    (unrestricted || INFRASTRUCTURE_CLIS.contains(&program)).then(|| entry.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze_texts(files: &[(&str, &str)], tools: &[&str]) -> Infrastructure {
        let meta = SkillMeta {
            allowed_tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            ..SkillMeta::default()
        };
        analyze(&Sources::from_texts(files), &meta)
    }

    fn found(infra: &Infrastructure) -> Vec<(&str, &str, u32)> {
        infra
            .found
            .iter()
            .map(|e| (e.what.as_str(), e.file.as_str(), e.line))
            .collect()
    }

    #[test]
    fn infrastructure_files_by_name_and_content() {
        let infra = analyze_texts(
            &[
                (
                    "Dockerfile",
                    "# build\nFROM python:3.12\nRUN pip install x\n",
                ),
                (
                    "deploy/main.tf",
                    "provider \"aws\" {}\nresource \"aws_s3_bucket\" \"b\" {}\n",
                ),
                (
                    "k8s/app.yaml",
                    "# app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n",
                ),
                (".github/workflows/ci.yml", "name: ci\non: push\njobs: {}\n"),
                (
                    "cfn/stack.json",
                    "{\n  \"AWSTemplateFormatVersion\": \"2010-09-09\"\n}\n",
                ),
                ("play.yml", "- hosts: all\n  tasks:\n    - ping:\n"),
                ("config.yaml", "kind: settings\nname: x\n"),
                ("tests/fixtures/Dockerfile", "FROM alpine\n"),
                ("package.json", "{\"kind\": \"x\"}\n"),
            ],
            &[],
        );
        assert_eq!(
            found(&infra),
            vec![
                ("GitHub Actions workflow", ".github/workflows/ci.yml", 2),
                ("Dockerfile", "Dockerfile", 2),
                ("CloudFormation template", "cfn/stack.json", 2),
                ("Terraform", "deploy/main.tf", 1),
                ("Kubernetes manifest (Deployment)", "k8s/app.yaml", 3),
                ("Ansible playbook", "play.yml", 1),
            ]
        );
    }

    #[test]
    fn services_started_stopped_or_enabled_change_the_host() {
        let infra = analyze_texts(
            &[(
                "restart.sh",
                "systemctl status nginx\nsudo systemctl restart nginx\nsystemctl --user enable --now sync.timer\nsystemctl list-units\nservice nginx status\nservice postgresql reload\nsudo systemctl daemon-reload\n",
            )],
            &["Bash(systemctl:*)", "Bash(git status:*)"],
        );
        assert_eq!(
            found(&infra),
            vec![
                ("allowed-tools grants Bash(systemctl:*)", "SKILL.md", 1),
                ("systemctl restart", "restart.sh", 2),
                ("systemctl enable", "restart.sh", 3),
                ("service reload", "restart.sh", 6),
                ("systemctl daemon-reload", "restart.sh", 7),
            ]
        );
    }

    #[test]
    fn commands_that_change_infrastructure() {
        let infra = analyze_texts(
            &[(
                "deploy.sh",
                "terraform plan\nterraform apply -auto-approve\nkubectl get pods\nkubectl -n prod apply -f k8s/\nhelm upgrade --install app ./chart\naws s3 cp x s3://b/x\naws cloudformation deploy --stack-name s\ngcloud config set project p\ngcloud run deploy svc --image i\ndocker build -t x .\ndocker push ghcr.io/o/x\ngh secret set TOKEN < t\n",
            )],
            &[],
        );
        assert_eq!(
            found(&infra),
            vec![
                ("terraform apply", "deploy.sh", 2),
                ("kubectl apply", "deploy.sh", 4),
                ("helm upgrade", "deploy.sh", 5),
                ("aws cloudformation deploy", "deploy.sh", 7),
                ("gcloud run deploy", "deploy.sh", 9),
                ("docker push", "deploy.sh", 11),
                ("gh secret set", "deploy.sh", 12),
            ]
        );
    }

    #[test]
    fn allowed_tools_that_grant_a_shell() {
        let skill = "---\nname: x\ndescription: y\nallowed-tools: Bash, Read\n---\nbody\n";
        let infra = analyze_texts(&[("SKILL.md", skill)], &["Bash", "Read"]);
        assert_eq!(
            found(&infra),
            vec![("allowed-tools grants Bash", "SKILL.md", 4)]
        );
        assert_eq!(
            infra.reason().as_deref(),
            Some("infrastructure change: allowed-tools grants Bash (SKILL.md:4)")
        );
        assert_eq!(shell_grant("Bash(*)").as_deref(), Some("Bash(*)"));
        assert_eq!(
            shell_grant("Bash(kubectl:*)").as_deref(),
            Some("Bash(kubectl:*)")
        );
        assert_eq!(shell_grant("Bash(git status:*)"), None);
        assert_eq!(
            shell_grant("Bash(git"),
            None,
            "split by SkillMeta at the space"
        );
        assert_eq!(shell_grant("Read"), None);
        assert_eq!(shell_grant("WebFetch"), None);
        let none = analyze_texts(&[("SKILL.md", skill)], &["Read", "Bash(npm test)"]);
        assert_eq!(none.reason(), None);
    }

    #[test]
    fn the_release_notifier_fixture() {
        let (sources, meta) = crate::analysis::fixtures::skill("release-notifier");
        assert_eq!(
            analyze(&sources, &meta).reason().as_deref(),
            Some(
                "infrastructure change: Dockerfile (Dockerfile:1), allowed-tools grants Bash (SKILL.md:4)"
            )
        );
    }
}
