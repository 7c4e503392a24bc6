//! Well-known external services and how code reaches them: the client libraries each language
//! imports, the package names manifests list them under, and the domains of their APIs.

use super::normalise;

/// One external service.
#[derive(Debug)]
pub struct Service {
    /// How a reviewer calls it: `notion`, `aws`, `google-cloud`.
    pub name: &'static str,
    /// Python modules; each also matches its submodules (`google.cloud` → `google.cloud.storage`).
    pub python: &'static [&'static str],
    /// npm packages; a trailing `/` matches every package of a scope (`@aws-sdk/`).
    pub js: &'static [&'static str],
    /// Go import paths; a trailing `/` matches every package below.
    pub go: &'static [&'static str],
    /// Ruby `require` names; a trailing `*` matches a prefix (`aws-sdk-*`).
    pub ruby: &'static [&'static str],
    /// Package names in manifests besides the import names (PyPI distributions, gems); a
    /// trailing `*` matches a prefix (`google-cloud-*`).
    pub packages: &'static [&'static str],
    /// Domains of the service's API: a host is the service's when it is one or under one.
    pub domains: &'static [&'static str],
}

const NONE: &[&str] = &[];

macro_rules! service {
    ($name:literal, python: $py:expr, js: $js:expr, go: $go:expr, ruby: $rb:expr,
     packages: $pkgs:expr, domains: $domains:expr $(,)?) => {
        Service {
            name: $name,
            python: $py,
            js: $js,
            go: $go,
            ruby: $rb,
            packages: $pkgs,
            domains: $domains,
        }
    };
}

/// The services, by name.
pub const SERVICES: &[Service] = &[
    service!("airtable", python: &["pyairtable", "airtable"], js: &["airtable"], go: NONE,
        ruby: &["airrecord"], packages: NONE, domains: &["airtable.com"]),
    service!("anthropic", python: &["anthropic"], js: &["@anthropic-ai/"],
        go: &["github.com/anthropics/anthropic-sdk-go"], ruby: &["anthropic"], packages: NONE,
        domains: &["anthropic.com"]),
    service!("asana", python: &["asana"], js: &["asana"], go: NONE, ruby: &["asana"],
        packages: NONE, domains: &["asana.com"]),
    service!("atlassian", python: &["atlassian", "jira"], js: &["jira-client", "jira.js",
        "confluence-api", "@atlassian/"], go: &["github.com/andygrunwald/go-jira"],
        ruby: &["jira-ruby"], packages: &["atlassian-python-api"],
        domains: &["atlassian.net", "atlassian.com"]),
    service!("aws", python: &["boto3", "botocore", "aioboto3", "aiobotocore", "awswrangler"],
        js: &["aws-sdk", "@aws-sdk/"],
        go: &["github.com/aws/aws-sdk-go/", "github.com/aws/aws-sdk-go-v2/"],
        ruby: &["aws-sdk*"], packages: NONE, domains: &["amazonaws.com"]),
    service!("azure", python: &["azure"], js: &["@azure/"],
        go: &["github.com/Azure/azure-sdk-for-go/"], ruby: &["azure*"],
        packages: &["azure-*"],
        domains: &["azure.com", "windows.net", "azurewebsites.net", "azure-api.net"]),
    service!("cloudflare", python: &["cloudflare"], js: &["cloudflare"],
        go: &["github.com/cloudflare/cloudflare-go"], ruby: NONE, packages: NONE,
        domains: &["api.cloudflare.com"]),
    service!("cohere", python: &["cohere"], js: &["cohere-ai"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["cohere.ai", "cohere.com"]),
    service!("datadog", python: &["datadog", "datadog_api_client", "ddtrace"],
        js: &["@datadog/", "dd-trace"], go: &["github.com/DataDog/"], ruby: &["dogapi", "datadog*"],
        packages: NONE, domains: &["datadoghq.com", "datadoghq.eu"]),
    service!("discord", python: &["discord", "discord_webhook"], js: &["discord.js",
        "@discordjs/"], go: &["github.com/bwmarrin/discordgo"], ruby: &["discordrb"],
        packages: &["discord.py", "py-cord"], domains: &["discord.com", "discordapp.com"]),
    service!("dropbox", python: &["dropbox"], js: &["dropbox"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["dropbox.com", "dropboxapi.com"]),
    service!("elevenlabs", python: &["elevenlabs"], js: &["elevenlabs", "@elevenlabs/"],
        go: NONE, ruby: NONE, packages: NONE, domains: &["elevenlabs.io"]),
    service!("firebase", python: &["firebase_admin", "pyrebase"],
        js: &["firebase", "firebase-admin", "@firebase/"], go: &["firebase.google.com/go"],
        ruby: NONE, packages: &["pyrebase4"],
        domains: &["firebaseio.com", "firebaseapp.com", "firebasedatabase.app"]),
    service!("gemini", python: &["google.generativeai", "google.genai"],
        js: &["@google/generative-ai", "@google/genai"], go: &["google.golang.org/genai"],
        ruby: NONE, packages: &["google-generativeai", "google-genai"],
        domains: &["generativelanguage.googleapis.com"]),
    service!("github", python: &["github", "ghapi", "githubkit"], js: &["@octokit/", "octokit"],
        go: &["github.com/google/go-github/"], ruby: &["octokit"], packages: &["pygithub"],
        domains: &["github.com", "githubusercontent.com"]),
    service!("gitlab", python: &["gitlab"], js: &["@gitbeaker/"],
        go: &["gitlab.com/gitlab-org/api/client-go", "github.com/xanzy/go-gitlab"],
        ruby: &["gitlab"], packages: &["python-gitlab"], domains: &["gitlab.com"]),
    service!("google-apis", python: &["googleapiclient"], js: &["googleapis", "@googleapis/"],
        go: &["google.golang.org/api/"], ruby: &["google/apis*"],
        packages: &["google-api-python-client"], domains: &["www.googleapis.com"]),
    service!("google-cloud", python: &["google.cloud"], js: &["@google-cloud/"],
        go: &["cloud.google.com/go/"], ruby: &["google/cloud*"], packages: &["google-cloud-*"],
        domains: &["googleapis.com", "cloud.google.com"]),
    service!("google-sheets", python: &["gspread", "pygsheets"], js: &["google-spreadsheet"],
        go: NONE, ruby: NONE, packages: NONE, domains: &["sheets.googleapis.com"]),
    service!("groq", python: &["groq"], js: &["groq-sdk"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["groq.com"]),
    service!("hubspot", python: &["hubspot"], js: &["@hubspot/"], go: NONE, ruby: &["hubspot*"],
        packages: &["hubspot-api-client"], domains: &["hubapi.com", "hubspot.com"]),
    service!("huggingface", python: &["huggingface_hub"], js: &["@huggingface/"], go: NONE,
        ruby: NONE, packages: NONE, domains: &["huggingface.co"]),
    service!("linear", python: &["linear_api"], js: &["@linear/"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["linear.app"]),
    service!("mailchimp", python: &["mailchimp_marketing", "mailchimp_transactional",
        "mailchimp3"], js: &["@mailchimp/"], go: NONE, ruby: &["mailchimp*", "gibbon"],
        packages: &["mailchimp-marketing"], domains: &["mailchimp.com", "list-manage.com"]),
    service!("microsoft-graph", python: &["msgraph"], js: &["@microsoft/microsoft-graph-client"],
        go: &["github.com/microsoftgraph/"], ruby: NONE, packages: &["msgraph-sdk"],
        domains: &["graph.microsoft.com"]),
    service!("mistral", python: &["mistralai"], js: &["@mistralai/"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["mistral.ai"]),
    service!("notion", python: &["notion_client"], js: &["@notionhq/"],
        go: &["github.com/jomei/notionapi"], ruby: &["notion-ruby-client"], packages: NONE,
        domains: &["notion.com", "notion.so"]),
    service!("openai", python: &["openai"], js: &["openai"],
        go: &["github.com/openai/openai-go", "github.com/sashabaranov/go-openai"],
        ruby: &["openai"], packages: &["ruby-openai"], domains: &["openai.com"]),
    service!("pagerduty", python: &["pdpyras", "pagerduty"], js: &["@pagerduty/"],
        go: &["github.com/PagerDuty/go-pagerduty"], ruby: &["pagerduty"], packages: NONE,
        domains: &["pagerduty.com"]),
    service!("paypal", python: &["paypalrestsdk", "paypalserversdk"], js: &["@paypal/"],
        go: NONE, ruby: NONE, packages: NONE, domains: &["paypal.com"]),
    service!("pinecone", python: &["pinecone"], js: &["@pinecone-database/"], go: NONE,
        ruby: NONE, packages: &["pinecone-client"], domains: &["pinecone.io"]),
    service!("posthog", python: &["posthog"], js: &["posthog-node", "posthog-js"], go: NONE,
        ruby: NONE, packages: NONE, domains: &["posthog.com"]),
    service!("replicate", python: &["replicate"], js: &["replicate"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["replicate.com"]),
    service!("resend", python: &["resend"], js: &["resend"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["resend.com"]),
    service!("salesforce", python: &["simple_salesforce"], js: &["jsforce", "@salesforce/"],
        go: NONE, ruby: &["restforce"], packages: NONE,
        domains: &["salesforce.com", "force.com"]),
    service!("sendgrid", python: &["sendgrid"], js: &["@sendgrid/"], go: &["github.com/sendgrid/"],
        ruby: &["sendgrid-ruby"], packages: NONE, domains: &["sendgrid.com", "sendgrid.net"]),
    service!("sentry", python: &["sentry_sdk"], js: &["@sentry/"],
        go: &["github.com/getsentry/sentry-go"], ruby: &["sentry-ruby"], packages: NONE,
        domains: &["sentry.io"]),
    service!("shopify", python: &["shopify"], js: &["@shopify/", "shopify-api-node"], go: NONE,
        ruby: &["shopify_api"], packages: &["shopifyapi"],
        domains: &["myshopify.com", "shopify.com"]),
    service!("slack", python: &["slack_sdk", "slack_bolt", "slack"], js: &["@slack/"],
        go: &["github.com/slack-go/slack"], ruby: &["slack-ruby-client"],
        packages: &["slackclient"], domains: &["slack.com"]),
    service!("stripe", python: &["stripe"], js: &["stripe", "@stripe/"],
        go: &["github.com/stripe/stripe-go/"], ruby: &["stripe"], packages: NONE,
        domains: &["stripe.com"]),
    service!("supabase", python: &["supabase"], js: &["@supabase/"],
        go: &["github.com/supabase-community/"], ruby: NONE, packages: NONE,
        domains: &["supabase.co", "supabase.com"]),
    service!("telegram", python: &["telegram", "telebot", "aiogram", "telethon"],
        js: &["node-telegram-bot-api", "telegraf", "grammy"],
        go: &["github.com/go-telegram-bot-api/"], ruby: &["telegram/bot"],
        packages: &["python-telegram-bot", "pytelegrambotapi"], domains: &["telegram.org"]),
    service!("trello", python: &["trello"], js: &["trello"], go: NONE, ruby: NONE,
        packages: &["py-trello"], domains: &["trello.com"]),
    service!("twilio", python: &["twilio"], js: &["twilio"], go: &["github.com/twilio/twilio-go"],
        ruby: &["twilio-ruby"], packages: NONE, domains: &["twilio.com"]),
    service!("twitter", python: &["tweepy"], js: &["twitter-api-v2"], go: NONE, ruby: &["twitter"],
        packages: NONE, domains: &["twitter.com", "api.x.com"]),
    service!("zendesk", python: &["zenpy"], js: &["node-zendesk"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["zendesk.com"]),
    service!("zoom", python: &["zoomus"], js: &["@zoom/"], go: NONE, ruby: NONE,
        packages: NONE, domains: &["zoom.us"]),
];

/// Which language's table a module is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Python,
    JavaScript,
    Go,
    Ruby,
}

/// Whether `pattern` (an entry of a table) names `module`, and how specifically (its length).
fn matches(pattern: &str, module: &str, sub: char) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        return module.starts_with(prefix);
    }
    if let Some(scope) = pattern.strip_suffix('/') {
        return module.starts_with(pattern) || module == scope;
    }
    module == pattern
        || module
            .strip_prefix(pattern)
            .is_some_and(|rest| rest.starts_with(sub) || rest.starts_with('/'))
}

/// The service whose client library `module` is, with the table entry that named it; the most
/// specific entry wins (`google.generativeai` over `google.cloud`'s neighbours).
pub fn of_module(module: &str, table: Table) -> Option<(&'static Service, &'static str)> {
    let sub = match table {
        Table::Python => '.',
        Table::JavaScript | Table::Go | Table::Ruby => '/',
    };
    SERVICES
        .iter()
        .flat_map(|service| {
            let entries = match table {
                Table::Python => service.python,
                Table::JavaScript => service.js,
                Table::Go => service.go,
                Table::Ruby => service.ruby,
            };
            entries.iter().map(move |entry| (service, *entry))
        })
        .filter(|(_, entry)| matches(entry, module, sub))
        .max_by_key(|(_, entry)| entry.len())
}

/// The service a manifest's package belongs to: its import names (`notion_client` is PyPI's
/// `notion-client`), npm packages, Go modules, gems and distribution names, compared as
/// [`normalise`] does.
pub fn of_package(package: &str) -> Option<&'static Service> {
    let name = normalise(package);
    let raw = package.trim().to_ascii_lowercase();
    SERVICES.iter().find(|service| {
        let named = |entry: &&str| {
            let entry_lower = entry.to_ascii_lowercase();
            if let Some(prefix) = entry_lower.strip_suffix('*') {
                return name.starts_with(&normalise(prefix)) || raw.starts_with(prefix);
            }
            if entry_lower.ends_with('/') {
                return raw.starts_with(&entry_lower);
            }
            normalise(&entry_lower) == name
        };
        service.packages.iter().any(named)
            || service.python.iter().any(named)
            || service.js.iter().any(named)
            || service.go.iter().any(|entry| {
                let entry = entry.trim_end_matches('/').to_ascii_lowercase();
                raw == entry || raw.starts_with(&format!("{entry}/"))
            })
            || service.ruby.iter().any(named)
    })
}

/// The service whose API `host` is (lowercase): the longest domain that is it or holds it.
pub fn of_host(host: &str) -> Option<&'static Service> {
    SERVICES
        .iter()
        .flat_map(|service| service.domains.iter().map(move |d| (service, *d)))
        .filter(|(_, domain)| {
            host == *domain
                || host
                    .strip_suffix(domain)
                    .is_some_and(|rest| rest.ends_with('.'))
        })
        .max_by_key(|(_, domain)| domain.len())
        .map(|(service, _)| service)
}

/// Command-line clients that call one service's API whatever they act on.
const PROGRAMS: &[(&str, &str)] = &[("gh", "github")];

/// The service a command-line client calls: `gh` → `github`.
pub fn of_program(program: &str) -> Option<&'static Service> {
    PROGRAMS
        .iter()
        .find(|(name, _)| *name == program)
        .and_then(|(_, service)| named(service))
}

/// The service named `name` (a declared dependency: `notion`, `Stripe`).
pub fn named(name: &str) -> Option<&'static Service> {
    let name = normalise(name);
    SERVICES.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(module: &str) -> Option<(&'static str, &'static str)> {
        of_module(module, Table::Python).map(|(s, e)| (s.name, e))
    }

    #[test]
    fn modules_name_their_service_and_nothing_else() {
        assert_eq!(py("notion_client"), Some(("notion", "notion_client")));
        assert_eq!(
            py("notion_client.Client"),
            Some(("notion", "notion_client"))
        );
        assert_eq!(
            py("google.cloud.storage"),
            Some(("google-cloud", "google.cloud"))
        );
        assert_eq!(
            py("google.generativeai"),
            Some(("gemini", "google.generativeai"))
        );
        assert_eq!(py("azure.identity"), Some(("azure", "azure")));
        assert_eq!(py("stripes"), None);
        assert_eq!(py("slackware"), None);
        assert_eq!(py("google.protobuf"), None);
        let js = |m: &str| of_module(m, Table::JavaScript).map(|(s, _)| s.name);
        assert_eq!(js("@aws-sdk/client-s3"), Some("aws"));
        assert_eq!(js("@anthropic-ai/sdk"), Some("anthropic"));
        assert_eq!(js("@notionhq/client"), Some("notion"));
        assert_eq!(js("stripe"), Some("stripe"));
        assert_eq!(js("stripe-mock"), None);
        assert_eq!(js("@slack/web-api"), Some("slack"));
        assert_eq!(js("axios"), None);
        let ruby = |m: &str| of_module(m, Table::Ruby).map(|(s, _)| s.name);
        assert_eq!(ruby("aws-sdk-s3"), Some("aws"));
        let go = |m: &str| of_module(m, Table::Go).map(|(s, _)| s.name);
        assert_eq!(go("github.com/stripe/stripe-go/v76"), Some("stripe"));
        assert_eq!(go("github.com/stripe/other"), None);
    }

    #[test]
    fn packages_and_hosts_name_their_service() {
        let pkg = |p: &str| of_package(p).map(|s| s.name);
        assert_eq!(pkg("notion-client"), Some("notion"));
        assert_eq!(pkg("PyGithub"), Some("github"));
        assert_eq!(pkg("google-cloud-storage"), Some("google-cloud"));
        assert_eq!(pkg("@aws-sdk/client-s3"), Some("aws"));
        assert_eq!(pkg("slack_sdk"), Some("slack"));
        assert_eq!(pkg("github.com/stripe/stripe-go/v76"), Some("stripe"));
        assert_eq!(pkg("requests"), None);
        assert_eq!(pkg("googletrans"), None);
        let host = |h: &str| of_host(h).map(|s| s.name);
        assert_eq!(host("api.notion.com"), Some("notion"));
        assert_eq!(host("sheets.googleapis.com"), Some("google-sheets"));
        assert_eq!(host("storage.googleapis.com"), Some("google-cloud"));
        assert_eq!(host("raw.githubusercontent.com"), Some("github"));
        assert_eq!(host("notstripe.com"), None);
        assert_eq!(named("Stripe").map(|s| s.name), Some("stripe"));
        assert_eq!(of_program("gh").map(|s| s.name), Some("github"));
        assert!(of_program("git").is_none());
    }

    #[test]
    fn every_service_is_reachable_and_named_once() {
        let mut names: Vec<&str> = SERVICES.iter().map(|s| s.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a service is listed twice");
        assert!(count >= 30, "{count}");
        for service in SERVICES {
            assert!(
                !(service.python.is_empty() && service.js.is_empty()),
                "{} has no Python or JavaScript client",
                service.name
            );
            assert!(
                !service.domains.is_empty(),
                "{} has no domain",
                service.name
            );
        }
    }
}
