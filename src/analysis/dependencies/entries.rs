//! How a skill's dependencies count: one [`Entry`] each, in the words a reviewer reads.
//!
//! - a service: **one**, however many of its libraries, hosts and files the code names
//!   (`notion (notion_client, scripts/sync.py:3; api.notion.com, scripts/sync.py:12)`);
//! - any other external host: one (`legacy.acme.io (scripts/legacy.sh:3)`);
//! - a manifest: one (`packages: requests, httpx (requirements.txt:1)`), unless every package
//!   it declares is the client library of a service already counted;
//! - a declared name that is none of the above, nor a tool or package: one
//!   (`declared: slack-webhook (SKILL.md:5)`);
//! - network tools and HTTP libraries when the code names no service or host and no manifest
//!   or declared name accounts for them: one for all of them
//!   (`endpoint not named: curl, wget (scripts/get.sh:2)`). Tools are how endpoints are
//!   reached, not endpoints of their own: `curl https://api.stripe.com` is one dependency.

use std::collections::{HashMap, HashSet};

use super::{Client, Dependencies, normalise, services};
use crate::analysis::evidence;
use crate::analysis::evidence::Evidence;

/// One integration point, as it counts: a name and its evidence, first where it is counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `notion`, `legacy.acme.io`, `packages: requests, httpx`, `endpoint not named: curl`.
    pub name: String,
    pub evidence: Vec<Evidence>,
    /// Whether each piece of evidence is shown with what it is (a service's libraries and
    /// hosts), or only where it is (the name says what).
    pub itemised: bool,
}

/// How many pieces of evidence a service entry shows before `and N more`.
const ITEMS: usize = 3;

impl Entry {
    /// `notion (notion_client, scripts/sync.py:3)`, `legacy.acme.io (scripts/legacy.sh:3)`,
    /// with each location written by `at(file, line)`.
    pub fn render(&self, at: &dyn Fn(&str, u32) -> String) -> String {
        if !self.itemised {
            return match self.evidence.first() {
                Some(e) => format!("{} ({})", self.name, at(&e.file, e.line)),
                None => self.name.clone(),
            };
        }
        let mut items: Vec<String> = self
            .evidence
            .iter()
            .take(ITEMS)
            .map(|e| format!("{}, {}", e.what, at(&e.file, e.line)))
            .collect();
        if self.evidence.len() > ITEMS {
            items.push(format!("and {} more", self.evidence.len() - ITEMS));
        }
        format!("{} ({})", self.name, items.join("; "))
    }
}

/// `file:line`, relative to the skill.
fn skill_relative(file: &str, line: u32) -> String {
    format!("{file}:{line}")
}

impl Dependencies {
    /// The number of integration points (see the module documentation): the length of
    /// [`Dependencies::entries`].
    pub fn count(&self) -> usize {
        self.entries().len()
    }

    /// What counts, one entry each, in this order: services and other hosts by name, manifests,
    /// declared names found nowhere else, then the tools that reach no named endpoint.
    pub fn entries(&self) -> Vec<Entry> {
        let mut reached: Vec<Entry> = Vec::new();
        let mut by_service: HashMap<String, usize> = HashMap::new();
        let mut service_entry = |reached: &mut Vec<Entry>, service: &str, evidence: Evidence| {
            let at = *by_service.entry(service.to_owned()).or_insert_with(|| {
                reached.push(Entry {
                    name: service.to_owned(),
                    evidence: Vec::new(),
                    itemised: true,
                });
                reached.len() - 1
            });
            reached[at].evidence.push(evidence);
        };
        let mut clients: Vec<&Client> = self.clients.iter().collect();
        clients.sort_by(|a, b| location(&a.library).cmp(&location(&b.library)));
        for client in clients {
            service_entry(&mut reached, &client.service, client.library.clone());
        }
        let mut hosts: Vec<&Evidence> = self.endpoints.iter().collect();
        hosts.sort_by(|a, b| location(a).cmp(&location(b)));
        for host in hosts {
            match services::of_host(&host.what) {
                Some(service) => service_entry(&mut reached, service.name, host.clone()),
                None => reached.push(Entry {
                    name: host.what.clone(),
                    evidence: vec![host.clone()],
                    itemised: false,
                }),
            }
        }
        reached.sort_by(|a, b| a.name.cmp(&b.name));
        let counted_services: HashSet<&str> = by_service.keys().map(String::as_str).collect();
        let mut entries = reached;
        for manifest in &self.manifests {
            let covered = !manifest.packages.is_empty()
                && manifest.packages.iter().all(|p| {
                    services::of_package(p).is_some_and(|s| counted_services.contains(s.name))
                });
            if !covered {
                let packages = if manifest.packages.is_empty() {
                    "not read".to_owned()
                } else {
                    evidence::list(&manifest.packages, 3)
                };
                entries.push(Entry {
                    name: format!("packages: {packages}"),
                    evidence: vec![Evidence::new(&manifest.file, &manifest.file, manifest.line)],
                    itemised: false,
                });
            }
        }
        let declared = self.declared_not_found(&counted_services);
        if let Some(first) = declared.first() {
            let names: Vec<String> = declared.iter().map(|d| d.what.clone()).collect();
            entries.push(Entry {
                name: format!("declared: {}", evidence::list(&names, SHOWN)),
                evidence: vec![(*first).clone()],
                itemised: false,
            });
        }
        let unaccounted = self.unaccounted_tools();
        if self.endpoints.is_empty()
            && self.clients.is_empty()
            && let Some(first) = unaccounted.first()
        {
            let names: Vec<String> = unaccounted.iter().map(|t| t.what.clone()).collect();
            let first = unaccounted
                .iter()
                .min_by(|a, b| location(a).cmp(&location(b)))
                .copied()
                .unwrap_or(first);
            entries.push(Entry {
                name: format!("endpoint not named: {}", evidence::list(&names, SHOWN)),
                evidence: vec![first.clone()],
                itemised: false,
            });
        }
        entries
    }

    /// The entries as a reviewer reads them, locations relative to the skill.
    pub fn counted(&self) -> Vec<String> {
        self.counted_at(&skill_relative)
    }

    /// The entries, each location written by `at(file, line)` (relative to the repository in
    /// the gate's signals).
    pub fn counted_at(&self, at: &dyn Fn(&str, u32) -> String) -> Vec<String> {
        self.entries().iter().map(|e| e.render(at)).collect()
    }

    /// In a reviewer's words: `2 external dependencies: stripe (stripe, pay.py:1), …`. `None`
    /// when nothing counts.
    pub fn reason(&self) -> Option<String> {
        let counted = self.counted();
        (!counted.is_empty()).then(|| {
            format!(
                "{}: {}",
                evidence::count_of(
                    counted.len(),
                    "external dependency",
                    "external dependencies"
                ),
                evidence::list(&counted, SHOWN)
            )
        })
    }

    /// Every name already counted or accounting for something counted, normalised: hosts,
    /// counted services and their libraries, manifest packages. Not the tools: a declared tool
    /// is what accounts for it (see [`Dependencies::unaccounted_tools`]), so it counts as
    /// declared.
    fn known_names(&self) -> HashSet<String> {
        self.endpoints
            .iter()
            .map(|e| normalise(&e.what))
            .chain(self.clients.iter().map(|c| normalise(&c.library.what)))
            .chain(self.clients.iter().map(|c| normalise(&c.service)))
            .chain(
                self.manifests
                    .iter()
                    .flat_map(|m| m.packages.iter().map(|p| normalise(p))),
            )
            .collect()
    }

    fn declared_not_found(&self, counted_services: &HashSet<&str>) -> Vec<&Evidence> {
        let known = self.known_names();
        self.declared
            .iter()
            .filter(|d| {
                let service = services::named(&d.what).or_else(|| services::of_package(&d.what));
                !known.contains(&normalise(&d.what))
                    && !service.is_some_and(|s| counted_services.contains(s.name))
            })
            .collect()
    }

    /// Tools that no manifest package or declared dependency accounts for.
    fn unaccounted_tools(&self) -> Vec<&Evidence> {
        let accounted: HashSet<String> = self
            .manifests
            .iter()
            .flat_map(|m| m.packages.iter())
            .chain(self.declared.iter().map(|d| &d.what))
            .map(|p| normalise(p))
            .collect();
        self.tools
            .iter()
            .filter(|t| !accounted.contains(&normalise(&t.what)))
            .collect()
    }
}

/// Sort key: file, then line.
fn location(e: &Evidence) -> (&str, u32) {
    (&e.file, e.line)
}

/// How many names a reason shows before `and N more`.
const SHOWN: usize = 5;

#[cfg(test)]
mod tests {

    use crate::analysis::dependencies::test_inputs::*;

    #[test]
    fn endpoints_and_tools_of_a_script_with_the_reason() {
        let deps = analyze_texts(&[(
            "scripts/notify.sh",
            "#!/bin/bash\n# docs: https://docs.stripe.com\ncurl -s https://api.stripe.com/v1/charges -u \"$KEY:\"\ncurl -X POST https://hooks.slack.com/services/T0/B0/x\ncurl https://api.stripe.com/v1/refunds\ncurl -s https://status.acme.io/ping\n",
        )]);
        assert_eq!(
            deps.endpoints,
            vec![
                ev("api.stripe.com", "scripts/notify.sh", 3),
                ev("hooks.slack.com", "scripts/notify.sh", 4),
                ev("status.acme.io", "scripts/notify.sh", 6),
            ]
        );
        assert_eq!(deps.tools, vec![ev("curl", "scripts/notify.sh", 3)]);
        assert_eq!(
            deps.counted(),
            [
                "slack (hooks.slack.com, scripts/notify.sh:4)",
                "status.acme.io (scripts/notify.sh:6)",
                "stripe (api.stripe.com, scripts/notify.sh:3)",
            ]
        );
        assert_eq!(
            deps.reason().as_deref(),
            Some(
                "3 external dependencies: slack (hooks.slack.com, scripts/notify.sh:4), status.acme.io (scripts/notify.sh:6), stripe (api.stripe.com, scripts/notify.sh:3)"
            )
        );
        let at = |file: &str, line: u32| format!("skills/n/{file}:{line}");
        assert_eq!(
            deps.counted_at(&at)[1],
            "status.acme.io (skills/n/scripts/notify.sh:6)"
        );
    }

    #[test]
    fn a_library_listed_in_a_manifest_is_not_counted_twice() {
        let deps = analyze_texts(&[
            ("requirements.txt", "stripe>=7\nnotion-client==2\n"),
            (
                "charge.py",
                "import stripe\nfrom notion_client import Client\nstripe.Charge.create(amount=1)\n",
            ),
        ]);
        assert_eq!(
            deps.counted(),
            [
                "notion (notion_client, charge.py:2)",
                "stripe (stripe, charge.py:1)",
            ],
            "a manifest of service clients only is those services"
        );
        let deps = analyze_texts(&[
            ("requirements.txt", "requests>=2\n"),
            ("get.py", "import requests\nrequests.get(url)\n"),
        ]);
        assert_eq!(
            deps.counted(),
            ["packages: requests (requirements.txt:1)"],
            "the manifest accounts for its library"
        );
        let deps = analyze_texts(&[("get.sh", "curl -s \"$URL\" -o out\nwget \"$1\"\n")]);
        assert_eq!(
            deps.counted(),
            ["endpoint not named: curl, wget (get.sh:1)"],
            "an endpoint the code does not name counts once"
        );
    }

    #[test]
    fn a_service_entry_shows_three_pieces_of_evidence() {
        let deps = analyze_texts(&[(
            "a.py",
            "import boto3\nimport botocore\nimport aioboto3\nU = 'https://s3.amazonaws.com/b'\n",
        )]);
        assert_eq!(
            deps.counted(),
            ["aws (boto3, a.py:1; botocore, a.py:2; aioboto3, a.py:3; and 1 more)"]
        );
    }
}
