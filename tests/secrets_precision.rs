//! Secrets precision (issue #15 point 4): placeholders and examples are never reported as
//! errors, real-format keys always are, wherever they stand.
//!
//! The corpus is built here when the test runs: no committed file holds a value that matches a
//! provider's format (see tests/fixtures/secrets/README.md), so every real-format key is a
//! provider's prefix (split in the source) and a body from a fixed-seed generator with the
//! entropy of a generated key, and every provider-shaped placeholder is assembled the same way.
//! The test prints the false-positive rate (placeholders reported at error level) and the
//! false-negative rate (real-format keys not reported at error level) and requires both to be 0.

mod common;

use common::{Repo, run, run_json, skill};
use skillgate::analysis::Sources;
use skillgate::analysis::secrets::{Level, SecretFinding, scan};

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGIT: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const PASSWORD: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%+=@^";
/// Every printable ASCII character but the space (a value with blanks is read as prose).
const PRINTABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// `len` characters of `alphabet` from a xorshift generator: the same seed, the same value.
fn fake(alphabet: &[u8], len: usize, seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let index = usize::try_from(state % alphabet.len() as u64).unwrap_or(0);
            char::from(alphabet[index])
        })
        .collect()
}

/// Unpadded base64url.
fn b64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= u32::from(b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64URL[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

fn jwt(alg: &str, signature: usize, seed: u64) -> String {
    format!(
        "{}.{}.{}",
        b64url(format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#).as_bytes()),
        b64url(format!(r#"{{"sub":"svc-{seed}","iat":1718000000}}"#).as_bytes()),
        fake(BASE64URL, signature, seed)
    )
}

fn pem(label: &str, lines: usize, seed: u64) -> String {
    let dashes = "-".repeat(5);
    let body: Vec<String> = (0..lines)
        .map(|i| fake(BASE64, 64, seed + i as u64))
        .collect();
    format!(
        "{dashes}BEGIN {label}{dashes}\n{}\n{dashes}END {label}{dashes}",
        body.join("\n")
    )
}

/// A prefix written in two halves, so that this file never holds it next to a body.
fn p(a: &str, b: &str) -> String {
    format!("{a}{b}")
}

/// One case: a file, its text, and the secret it holds.
struct Case {
    path: &'static str,
    text: String,
    /// The value a real-format case must be found as, and its rule.
    secret: String,
    rule: &'static str,
}

fn real(path: &'static str, rule: &'static str, secret: String, line: &str) -> Case {
    Case {
        path,
        text: line.replace("{}", &secret),
        secret,
        rule,
    }
}

/// At least 50 real-format keys across providers, in the places skills keep them, some of
/// them in test fixtures or next to the word "example": a real key is an error wherever it is.
fn real_keys() -> Vec<Case> {
    let s = |n: u64| n * 7 + 1;
    let slack_ids = |n: u64| format!("{}-{}", fake(DIGITS, 12, s(n)), fake(DIGITS, 13, s(n) + 1));
    let openai_body = |n: u64| {
        format!(
            "{}T3BlbkFJ{}",
            fake(BASE64URL, 74, s(n)),
            fake(BASE64URL, 74, s(n) + 1)
        )
    };
    vec![
        real(
            ".env",
            "aws-access-key-id",
            p("AK", "IA") + &fake(UPPER_DIGIT, 16, s(1)),
            "AWS_ACCESS_KEY_ID={}",
        ),
        real(
            "scripts/upload.py",
            "aws-access-key-id",
            p("AS", "IA") + &fake(UPPER_DIGIT, 16, s(2)),
            "session = boto3.Session(aws_access_key_id=\"{}\")",
        ),
        real(
            "credentials",
            "aws-secret-access-key",
            fake(BASE64, 40, s(3)),
            "[default]\naws_secret_access_key = {}",
        ),
        real(
            "settings.json",
            "aws-secret-access-key",
            fake(BASE64, 40, s(4)),
            "{\"SecretAccessKey\": \"{}\"}",
        ),
        real(
            "scripts/release.sh",
            "github-token",
            p("gh", "p_") + &fake(ALNUM, 36, s(5)),
            "export GH_TOKEN={}",
        ),
        real(
            "config.json",
            "github-token",
            p("gh", "o_") + &fake(ALNUM, 36, s(6)),
            "{\"oauth\": \"{}\"}",
        ),
        real(
            "config.yaml",
            "github-token",
            p("gh", "u_") + &fake(ALNUM, 36, s(7)),
            "token: {}",
        ),
        real(
            ".github/workflows/ci.yml",
            "github-token",
            p("gh", "s_") + &fake(ALNUM, 36, s(8)),
            "        env:\n          TOKEN: {}",
        ),
        real(
            "app.ts",
            "github-token",
            p("gh", "r_") + &fake(ALNUM, 76, s(9)),
            "const refresh = '{}';",
        ),
        real(
            "SKILL.md",
            "github-fine-grained-pat",
            format!(
                "{}{}_{}",
                p("github", "_pat_"),
                fake(ALNUM, 22, s(10)),
                fake(ALNUM, 59, s(10) + 1)
            ),
            "Run `GH_TOKEN={} gh pr list`.",
        ),
        real(
            "tests/test_github.py",
            "github-fine-grained-pat",
            format!(
                "{}{}_{}",
                p("github", "_pat_"),
                fake(ALNUM, 22, s(11)),
                fake(ALNUM, 59, s(11) + 1)
            ),
            "TOKEN = \"{}\"  # test token",
        ),
        real(
            ".gitlab-ci.yml",
            "gitlab-token",
            p("glp", "at-") + &fake(ALNUM, 20, s(12)),
            "  PRIVATE_TOKEN: {}",
        ),
        real(
            "scripts/mr.sh",
            "gitlab-token",
            format!(
                "{}{}.01.{}",
                p("glp", "at-"),
                fake(ALNUM, 27, s(13)),
                fake(ALNUM, 9, s(13) + 1)
            ),
            "glab auth login --token {}",
        ),
        real(
            "deploy.env",
            "gitlab-token",
            p("gld", "t-") + &fake(ALNUM, 20, s(14)),
            "DEPLOY_TOKEN={}",
        ),
        real(
            "runner.toml",
            "gitlab-token",
            p("glr", "t-") + &fake(ALNUM, 20, s(15)),
            "token = \"{}\"",
        ),
        real(
            ".env",
            "slack-token",
            format!(
                "{}{}-{}",
                p("xo", "xb-"),
                slack_ids(16),
                fake(ALNUM, 24, s(16))
            ),
            "SLACK_BOT_TOKEN={}",
        ),
        real(
            "scripts/notify.py",
            "slack-token",
            format!(
                "{}{}-{}-{}",
                p("xo", "xp-"),
                fake(DIGITS, 10, s(17)),
                slack_ids(17),
                fake(HEX, 32, s(17))
            ),
            "client = WebClient(token=\"{}\")",
        ),
        real(
            "socket.js",
            "slack-token",
            format!(
                "{}1-A{}-{}-{}",
                p("xa", "pp-"),
                fake(UPPER_DIGIT, 10, s(18)),
                fake(DIGITS, 13, s(18)),
                fake(HEX, 64, s(18))
            ),
            "new App({ appToken: '{}' });",
        ),
        real(
            "scripts/post.sh",
            "slack-webhook",
            format!(
                "https://{}/services/T{}/B{}/{}",
                p("hooks.slack", ".com"),
                fake(UPPER_DIGIT, 8, s(19)),
                fake(UPPER_DIGIT, 10, s(19) + 1),
                fake(ALNUM, 24, s(19) + 2)
            ),
            "curl -X POST -d @msg.json {}",
        ),
        real(
            "SKILL.md",
            "slack-webhook",
            format!(
                "https://{}/services/T{}/B{}/{}",
                p("hooks.slack", ".com"),
                fake(UPPER_DIGIT, 8, s(20)),
                fake(UPPER_DIGIT, 10, s(20) + 1),
                fake(ALNUM, 24, s(20) + 2)
            ),
            "Example webhook: {}",
        ),
        real(
            "billing.js",
            "stripe-live-key",
            p("sk_l", "ive_") + &fake(ALNUM, 99, s(21)),
            "const stripe = require('stripe')('{}');",
        ),
        real(
            "settings.json",
            "stripe-live-key",
            p("rk_l", "ive_") + &fake(ALNUM, 24, s(22)),
            "{\"restrictedKey\": \"{}\"}",
        ),
        real(
            "tests/test_billing.py",
            "stripe-live-key",
            p("sk_l", "ive_") + &fake(ALNUM, 24, s(23)),
            "stripe.api_key = \"{}\"  # example",
        ),
        real(
            "index.html",
            "google-api-key",
            p("AI", "za") + &fake(BASE64URL, 35, s(24)),
            "<script src=\"https://maps.googleapis.com/maps/api/js?key={}\"></script>",
        ),
        real(
            "SKILL.md",
            "google-api-key",
            p("AI", "za") + &fake(BASE64URL, 35, s(25)),
            "Example:\n\n```bash\nexport GOOGLE_API_KEY={}\n```",
        ),
        real(
            "agent.py",
            "openai-api-key",
            p("sk-pr", "oj-") + &openai_body(26),
            "client = OpenAI(api_key=\"{}\")",
        ),
        real(
            ".env",
            "openai-api-key",
            p("sk-svc", "acct-") + &openai_body(27),
            "OPENAI_API_KEY={}",
        ),
        real(
            "legacy.py",
            "openai-api-key",
            format!(
                "{}{}T3BlbkFJ{}",
                p("s", "k-"),
                fake(ALNUM, 20, s(28)),
                fake(ALNUM, 20, s(28) + 1)
            ),
            "openai.api_key = \"{}\"",
        ),
        real(
            "claude.ts",
            "anthropic-api-key",
            format!("{}{}AA", p("sk-ant-", "api03-"), fake(BASE64URL, 93, s(29))),
            "const anthropic = new Anthropic({ apiKey: '{}' });",
        ),
        real(
            "admin.sh",
            "anthropic-api-key",
            format!(
                "{}{}AA",
                p("sk-ant-", "admin01-"),
                fake(BASE64URL, 93, s(30))
            ),
            "curl -H \"x-api-key: {}\" https://api.anthropic.com/v1/organizations/users",
        ),
        real(
            "notion.py",
            "notion-token",
            format!(
                "{}{}{}",
                p("nt", "n_"),
                fake(DIGITS, 11, s(31)),
                fake(ALNUM, 35, s(31))
            ),
            "notion = Client(auth=\"{}\")",
        ),
        real(
            "sync.js",
            "notion-token",
            p("sec", "ret_") + &fake(ALNUM, 43, s(32)),
            "const notion = new Client({ auth: \"{}\" });",
        ),
        real(
            ".npmrc",
            "npm-token",
            p("np", "m_") + &fake(ALNUM, 36, s(33)),
            "//registry.npmjs.org/:_authToken={}",
        ),
        real(
            ".pypirc",
            "pypi-token",
            format!(
                "{}{}",
                p("pypi-AgEIcHlw", "aS5vcmc"),
                fake(BASE64URL, 150, s(34))
            ),
            "[pypi]\nusername = __token__\npassword = {}",
        ),
        real(
            "mail.py",
            "sendgrid-api-key",
            format!(
                "{}{}.{}",
                p("S", "G."),
                fake(BASE64URL, 22, s(35)),
                fake(BASE64URL, 43, s(35) + 1)
            ),
            "sg = SendGridAPIClient(\"{}\")",
        ),
        real(
            "sms.rb",
            "twilio-api-key",
            p("S", "K") + &fake(HEX, 32, s(36)),
            "client = Twilio::REST::Client.new('{}', secret)",
        ),
        real(
            "hub.py",
            "huggingface-token",
            p("h", "f_") + &fake(LETTERS, 34, s(37)),
            "login(token=\"{}\")",
        ),
        real(
            "scripts/call.sh",
            "jwt",
            jwt("HS256", 43, s(38)),
            "curl -H \"Authorization: Bearer {}\" https://api.acme.dev",
        ),
        real(
            "config/session.json",
            "jwt",
            jwt("RS256", 342, s(39)),
            "{\"id_token\": \"{}\"}",
        ),
        real(
            "keys/deploy_key",
            "private-key",
            pem("OPENSSH PRIVATE KEY", 6, s(40)),
            "{}",
        ),
        real(
            "scripts/sign.py",
            "private-key",
            pem("RSA PRIVATE KEY", 8, s(41)),
            "KEY = \"\"\"\n{}\n\"\"\"",
        ),
        real(
            "service-account.json",
            "private-key",
            pem("PRIVATE KEY", 4, s(42)).replace('\n', "\\n"),
            "{\"private_key\": \"{}\"}",
        ),
        real(
            "keys/ec.pem",
            "private-key",
            pem("EC PRIVATE KEY", 3, s(43)),
            "{}",
        ),
        real(
            ".env",
            "url-password",
            fake(ALNUM, 20, s(44)),
            "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
        ),
        real(
            "docker-compose.yml",
            "url-password",
            fake(PASSWORD, 16, s(45)).replace(['#', '%', '@', '^', '+', '='], "x"),
            "      REDIS_URL: redis://default:{}@cache:6379/0",
        ),
        real(
            "scripts/mirror.sh",
            "url-password",
            fake(ALNUM, 24, s(46)),
            "git clone https://mirror-bot:{}@git.acme.dev/app.git",
        ),
        real(
            "db.py",
            "generic-secret",
            fake(PASSWORD, 16, s(47)),
            "conn = connect(host=\"db\", password=\"{}\")",
        ),
        real(
            "config.yaml",
            "generic-secret",
            fake(ALNUM, 32, s(48)),
            "service:\n  api_key: {}",
        ),
        real(
            "oauth.json",
            "generic-secret",
            fake(HEX, 40, s(49)),
            "{\"clientSecret\": \"{}\"}",
        ),
        real(
            "scripts/backup.sh",
            "generic-secret",
            fake(PASSWORD, 14, s(50)).replace(['#', '^'], "k"),
            "pg_dump --password {} app > app.sql",
        ),
        real(
            "SKILL.md",
            "generic-secret",
            fake(ALNUM, 32, s(51)),
            "```bash\ncurl -H \"Authorization: Bearer {}\" https://api.acme.dev/v1/items\n```",
        ),
        real(
            ".env",
            "generic-secret",
            fake(PASSWORD, 18, s(52)),
            "DB_PASSWORD={}",
        ),
        real(
            "main.go",
            "generic-secret",
            fake(ALNUM, 28, s(53)),
            "const apiToken = \"{}\"",
        ),
        real(
            "scripts/charge.sh",
            "stripe-live-key",
            p("sk_l", "ive_") + &fake(ALNUM, 24, s(54)),
            "STRIPE_KEY={}  # your live key, e.g. from the dashboard",
        ),
        real(
            "README.md",
            "openai-api-key",
            p("sk-pr", "oj-") + &openai_body(55),
            "For example, `OPENAI_API_KEY={}`.",
        ),
        real(
            "tests/test_hf.py",
            "huggingface-token",
            p("h", "f_") + &fake(LETTERS, 34, s(56)),
            "HF_TOKEN = \"{}\"  # dummy",
        ),
        // Words elsewhere on the line say nothing of a generic secret: a comment about something
        // else, a file name, an identifier, a document's title.
        real(
            "scripts/load.sh",
            "generic-secret",
            fake(ALNUM, 32, s(57)),
            "API_KEY=\"{}\" # rotated after the load test",
        ),
        real(
            "SKILL.md",
            "generic-secret",
            "Hq3ZtR7vLk2Xw9PmN4bYc7Hd".to_owned(),
            "```bash\npython3 scripts/test_connection.py --token {}\n```",
        ),
        real(
            "scripts/probe.sh",
            "generic-secret",
            fake(ALNUM, 24, s(59)),
            "curl -s -H \"X-Api-Key: {}\" http://localhost:8080/health # e.g. a status probe",
        ),
        real(
            "scripts/db.sh",
            "generic-secret",
            fake(PRINTABLE, 16, s(60)).replace(['\'', '\\'], "k"),
            "PGPASSWORD='{}' psql -h db -U your_user -c 'select 1'",
        ),
        real(
            "SKILL.md",
            "generic-secret",
            fake(PRINTABLE, 15, s(61)).replace(['\'', '\\'], "k"),
            "# Sample Data Generator\n\nLoads the warehouse.\n\n```bash\nexport WAREHOUSE_PASSWORD='{}'\n```",
        ),
        // Passwords with the punctuation templates use: only a template's shape is one.
        real(
            "scripts/db.sh",
            "generic-secret",
            "Kx9<mP2vL8@qR4!".to_owned(),
            "export PGPASSWORD='{}'",
        ),
        real(
            "scripts/db.sh",
            "generic-secret",
            "7fQ>w2Lm9zRt4Kx8".to_owned(),
            "export REDIS_PASSWORD='{}'",
        ),
        real(
            "scripts/db.sh",
            "generic-secret",
            "aZ3...Lq9mW2xR7tK".to_owned(),
            "export API_TOKEN='{}'",
        ),
        real(
            "scripts/db.sh",
            "generic-secret",
            "(Zp9LmX2vK8sTq4".to_owned(),
            "export SMTP_PASSWORD='{}'",
        ),
        real(
            ".env",
            "generic-secret",
            "${9Lm{X2vK8sT}q4".to_owned(),
            "ADMIN_PASSWORD=\"{}\"",
        ),
        real(
            ".env",
            "url-password",
            "$Hq3!Zp9LmX2vK8s".to_owned(),
            "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
        ),
    ]
}

fn placeholder(path: &'static str, text: impl Into<String>) -> Case {
    Case {
        path,
        text: text.into(),
        secret: String::new(),
        rule: "",
    }
}

/// At least 50 placeholders and examples, the issue's among them: none is an error.
fn placeholders() -> Vec<Case> {
    let seq = |prefix: &str, len: usize| {
        let body: String = "A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q7R8S9T0"
            .chars()
            .cycle()
            .take(len)
            .collect();
        format!("{prefix}{body}")
    };
    let abc = |prefix: &str, len: usize| {
        let body: String = "abc123def456ghi789".chars().cycle().take(len).collect();
        format!("{prefix}{body}")
    };
    vec![
        // The issue's four.
        placeholder(
            "docs/setup.md",
            format!(
                "Set `GOOGLE_API_KEY` to your key, e.g. `{}`.",
                p("AIzaSy", "A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q")
            ),
        ),
        placeholder(
            "SKILL.md",
            "```bash\ncurl -X POST https://api.acme.dev/login -d '{\"username\":\"admin\",\"password\":\"Password123!\"}'\n```",
        ),
        placeholder(
            "tests/fixtures/notion.json",
            format!(
                "{{\"token\": \"{}\", \"legacy\": \"{}\"}}",
                p("nt", "n_abc123def456"),
                p("sec", "ret_abc123def456")
            ),
        ),
        placeholder(
            "SKILL.md",
            "Passwords need 12 characters, a digit and a symbol.\nExample compliant password: `StrongPass@2025!`",
        ),
        // Provider prefixes with sequential or repeated bodies.
        placeholder(
            "SKILL.md",
            format!("export GH_TOKEN={}", seq(&p("gh", "p_"), 36)),
        ),
        placeholder("config.yaml", format!("token: {}", abc(&p("gh", "p_"), 36))),
        placeholder(
            ".env",
            format!("STRIPE_KEY={}1234567890123456789012", p("sk_l", "ive_")),
        ),
        placeholder(
            ".env",
            format!("AWS_ACCESS_KEY_ID={}1234567890ABCDEF", p("AK", "IA")),
        ),
        placeholder(
            "SKILL.md",
            format!(
                "SLACK_BOT_TOKEN={}123456789012-123456789012-abcdefghijklmnopqrstuvwx",
                p("xo", "xb-")
            ),
        ),
        placeholder(
            "docs/gitlab.md",
            format!("Use `{}abcdefghij1234567890`.", p("glp", "at-")),
        ),
        placeholder(
            "agent.py",
            format!(
                "client = OpenAI(api_key=\"{}\")",
                abc(&p("sk-pr", "oj-"), 60)
            ),
        ),
        placeholder(
            "claude.py",
            format!("key = \"{}{}AA\"", p("sk-ant-", "api03-"), "x".repeat(93)),
        ),
        placeholder(
            ".npmrc",
            format!(
                "//registry.npmjs.org/:_authToken={}",
                seq(&p("np", "m_"), 36)
            ),
        ),
        placeholder(
            "hub.py",
            format!(
                "login(token=\"{}abcdefghijklmnopqrstuvwxyzabcdefgh\")",
                p("h", "f_")
            ),
        ),
        placeholder(
            "mail.py",
            format!(
                "SendGridAPIClient(\"{}abcdefghijklmnopqrstuv.{}\")",
                p("S", "G."),
                seq("", 43)
            ),
        ),
        placeholder(
            "sms.py",
            format!(
                "Client(\"{}0123456789abcdef0123456789abcdef\", secret)",
                p("S", "K")
            ),
        ),
        placeholder(
            "notion.py",
            format!("Client(auth=\"{}\")", seq(&p("nt", "n_"), 46)),
        ),
        placeholder(
            "SKILL.md",
            format!("`GITHUB_PAT={}`", seq(&p("github", "_pat_"), 82)),
        ),
        placeholder(
            ".env.example",
            format!(
                "STRIPE_SECRET_KEY={}xxxxxxxxxxxxxxxxxxxxxxxx",
                p("sk_l", "ive_")
            ),
        ),
        placeholder(
            "SKILL.md",
            format!(
                "export GITHUB_TOKEN={}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                p("gh", "p_")
            ),
        ),
        placeholder(
            "docs/keys.md",
            format!(
                "`{}IOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`",
                p("AK", "IA")
            ),
        ),
        placeholder(
            "SKILL.md",
            format!(
                "Slack webhooks look like https://{}/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
                p("hooks.slack", ".com")
            ),
        ),
        placeholder(
            "SKILL.md",
            format!(
                "export SLACK_BOT_TOKEN={}your-bot-token-here",
                p("xo", "xb-")
            ),
        ),
        // Placeholder words in the value.
        placeholder("config.py", "password = \"example-password-123\""),
        placeholder(".env", "API_KEY=your-api-key-here"),
        placeholder("config.yaml", "token: dummy_token_value_42"),
        placeholder(".env", "SECRET=changeme123"),
        placeholder("config.yaml", "password: \"xxxxxxxx\""),
        placeholder("app.py", "client_secret = \"sample-client-secret\""),
        placeholder("app.py", "api_key = \"test_key_12345678\""),
        placeholder("ci.env", "DB_PASSWORD=fake-password-for-ci"),
        placeholder("settings.json", "{\"apiKey\": \"YOUR_API_KEY\"}"),
        placeholder(
            "billing.py",
            format!(
                "api_key = \"{}4eC39HqLyjWDarjtT1zdp7dc\"",
                p("sk_t", "est_")
            ),
        ),
        // Sequences, repetitions and sample passwords.
        placeholder("config.yaml", "api_key: 1234567890abcdef"),
        placeholder("app.py", "password = \"abcdefgh\""),
        placeholder("app.py", "secret = \"aaaaaaaaaaaaaaaa\""),
        placeholder("app.py", "token = \"abc123abc123abc123\""),
        placeholder("SKILL.md", "Log in with `--password Qwerty123!`."),
        placeholder("config.yaml", "password: \"Welcome@2024\""),
        placeholder(".env", "PASSWORD=P@ssw0rd!"),
        placeholder("db.py", "connect(password=\"Admin@1234\")"),
        // Random generic values whose place says example: warnings at most.
        placeholder("app.py", "password = \"q7Rk2mXz9LpW\"  # example"),
        placeholder("tests/test_login.py", "password = \"Xk29vLqP7mZt\""),
        placeholder("spec/auth.spec.js", "const token = \"Lm3nQ8rT2vWx9yZa\";"),
        placeholder(
            "SKILL.md",
            "For example, set `DB_PASSWORD=R7tY2uI9oP3a` in `.env`.",
        ),
        placeholder(
            "SKILL.md",
            "## Examples\n\n```bash\ncurl -u admin:Hq7Wm2Xz9Kp4 https://api.acme.dev\ncurl https://admin:Vb8Nc3Mx6Lz1@api.acme.dev/v1\n```",
        ),
        placeholder("scripts/test_auth.py", "API_TOKEN = \"Zp4Lk8Qw2Er6Ty0U\""),
        placeholder(
            "SKILL.md",
            "An example request:\n\n```bash\ncurl -H \"Authorization: Bearer Gf5Hj8Kl2Qw9Er4T\" https://api.acme.dev\n```",
        ),
        placeholder(
            "docker-compose.yml",
            "DB_PASSWORD: Nm4Bv7Cx1Zq8  # your password",
        ),
        // References, templates, documented examples, public material.
        placeholder(
            "postgres.env",
            "DATABASE_URL=postgres://user:password@localhost/db",
        ),
        placeholder(
            "compose.yml",
            "MYSQL_URL: mysql://root:root@localhost:3306/app",
        ),
        placeholder(
            "scripts/push.sh",
            "git push https://bot:${GH_TOKEN}@github.com/acme/app.git",
        ),
        placeholder(
            ".github/workflows/ci.yml",
            "      password: ${{ secrets.DB_PASSWORD }}",
        ),
        placeholder("app.py", "token = os.environ[\"TOKEN\"]"),
        placeholder(
            "SKILL.md",
            "curl -H \"Authorization: Bearer <token>\" https://api.acme.dev",
        ),
        placeholder(
            "scripts/call.sh",
            "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com",
        ),
        placeholder("SKILL.md", "Set `OPENAI_API_KEY=sk-...` first."),
        placeholder(
            "docs/jwt.md",
            format!(
                "An unsigned token: `{}.{}.`",
                b64url(br#"{"alg":"none"}"#),
                b64url(br#"{"sub":"bot"}"#)
            ),
        ),
        placeholder(
            "docs/keys.md",
            format!(
                "```\n{}BEGIN RSA PRIVATE KEY{}\nMIIEowIBAAKCAQEA...\n{}END RSA PRIVATE KEY{}\n```",
                "-".repeat(5),
                "-".repeat(5),
                "-".repeat(5),
                "-".repeat(5)
            ),
        ),
        placeholder(
            "docs/keys.md",
            format!(
                "{}BEGIN PRIVATE KEY{}\n<your private key>\n{}END PRIVATE KEY{}",
                "-".repeat(5),
                "-".repeat(5),
                "-".repeat(5),
                "-".repeat(5)
            ),
        ),
        placeholder("keys/ca.pem", pem("CERTIFICATE", 6, 900)),
        placeholder("keys/deploy.pub", pem("PUBLIC KEY", 4, 901)),
    ]
}

fn scan_case(case: &Case) -> Vec<SecretFinding> {
    scan(&Sources::from_texts(&[(case.path, case.text.as_str())]))
}

fn redacted_prefix(secret: &str) -> String {
    let head: String = secret.chars().take(4).collect();
    format!("{head}…")
}

#[test]
fn placeholders_are_never_errors_and_real_keys_always_are() {
    let reals = real_keys();
    let fakes = placeholders();
    assert!(reals.len() >= 50, "{} real-format keys", reals.len());
    assert!(fakes.len() >= 50, "{} placeholders", fakes.len());

    let mut false_negatives = Vec::new();
    let mut providers = std::collections::BTreeSet::new();
    for case in &reals {
        providers.insert(case.rule);
        let found = scan_case(case);
        let hit = found.iter().any(|f| {
            f.level == Level::Error
                && f.rule == case.rule
                && f.example.is_none()
                && (f.redacted == redacted_prefix(&case.secret) || f.rule == "private-key")
        });
        if !hit {
            false_negatives.push(format!(
                "{} ({}) {:?}: {found:?}",
                case.path, case.rule, case.text
            ));
        }
    }
    let mut false_positives = Vec::new();
    let mut warnings = 0;
    for case in &fakes {
        let found = scan_case(case);
        warnings += found.iter().filter(|f| f.level == Level::Warning).count();
        let errors: Vec<&SecretFinding> =
            found.iter().filter(|f| f.level == Level::Error).collect();
        if !errors.is_empty() {
            false_positives.push(format!("{} {:?}: {errors:?}", case.path, case.text));
        }
    }
    let rate = |n: usize, of: usize| n as f64 / of as f64;
    println!(
        "secrets precision: {} real-format keys ({} rules), false-negative rate {:.3} ({}); \
         {} placeholders, false-positive rate {:.3} ({}), {} reported as warnings",
        reals.len(),
        providers.len(),
        rate(false_negatives.len(), reals.len()),
        false_negatives.len(),
        fakes.len(),
        rate(false_positives.len(), fakes.len()),
        false_positives.len(),
        warnings,
    );
    assert_eq!(false_negatives, Vec::<String>::new(), "real keys missed");
    assert_eq!(
        false_positives,
        Vec::<String>::new(),
        "placeholders reported as errors"
    );
    assert!(providers.len() >= 20, "{providers:?}");
}

#[test]
fn examples_in_context_are_warnings_with_their_reason() {
    let cases = [
        (
            "tests/test_login.py",
            "password = \"Xk29vLqP7mZt\"",
            "in a test fixture",
        ),
        (
            "app.py",
            "password = \"q7Rk2mXz9LpW\"  # example",
            "`example` on its line",
        ),
        (
            "SKILL.md",
            "Passwords need a digit and a symbol.\nExample compliant password: `StrongPass@2025!`",
            "a sample password (words, a sequence, a year)",
        ),
        (
            "SKILL.md",
            "An example request:\n\n```bash\ncurl -H \"Authorization: Bearer Gf5Hj8Kl2Qw9Er4T\" https://api.acme.dev\n```",
            "an example in Markdown, labelled at line 1",
        ),
    ];
    for (path, text, why) in cases {
        let found = scan(&Sources::from_texts(&[(path, text)]));
        let shown: Vec<(Level, String)> = found
            .iter()
            .map(|f| {
                (
                    f.level,
                    f.example.map(|e| e.to_string()).unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(shown, [(Level::Warning, why.to_owned())], "{path}: {text}");
    }
}

const DIR: &str = ".claude/skills/notes";

#[test]
fn a_skill_with_only_examples_is_not_blocked_and_shows_the_warnings() {
    let repo = Repo::plain();
    repo.write(
        &format!("{DIR}/SKILL.md"),
        &format!(
            "---\nname: notes\ndescription: Posts notes to Notion.\n---\n# Notes\n\n\
             Set `GOOGLE_API_KEY`, e.g. `{}`.\n\n\
             ```bash\ncurl -X POST https://api.acme.dev/login -d '{{\"password\":\"Password123!\"}}'\n```\n\n\
             Example compliant password: `StrongPass@2025!`\n",
            p("AIzaSy", "A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q")
        ),
    );
    repo.write(
        &format!("{DIR}/tests/fixtures/notion.json"),
        &format!(
            "{{\n  \"token\": \"{}\",\n  \"legacy\": \"{}\",\n  \"password\": \"Xk29vLqP7mZt\"\n}}\n",
            p("nt", "n_abc123def456"),
            p("sec", "ret_abc123def456")
        ),
    );
    repo.write(
        &format!("{DIR}/test.sh"),
        "echo '1..1'; echo 'ok 1 - notes'\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let notes = skill(&doc, "notes");
    let reasons = notes["decision"]["reasons"].to_string();
    assert_ne!(
        notes["decision"]["decision"], "needs_correction",
        "{reasons}"
    );
    let analysis = &notes["signals"]["analysis"];
    assert_eq!(analysis["secrets"], serde_json::json!([]), "{reasons}");
    let warnings: Vec<String> = analysis["secret_warnings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        warnings,
        [
            format!(
                "{DIR}/SKILL.md:10 generic-secret Pass… (a sample password (words, a sequence, a year))"
            ),
            format!(
                "{DIR}/SKILL.md:13 generic-secret Stro… (a sample password (words, a sequence, a year))"
            ),
            format!("{DIR}/tests/fixtures/notion.json:4 generic-secret Xk29… (in a test fixture)"),
        ]
    );
    assert_eq!(
        notes["decision"]["criteria"]["hardcoded_secrets"]["passed"],
        true
    );
    // Each is a warning finding on its line, which every report shows whatever the tier (the
    // suite here passes but the skill has no coverage, so the tier is not auto and the passing
    // secrets reason is not listed).
    let findings: Vec<(String, String, u64)> = notes["lint"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "secret-example")
        .map(|f| {
            (
                f["severity"].as_str().unwrap_or_default().to_owned(),
                f["file"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let warning = |file: &str, line| ("warning".to_owned(), format!("{DIR}/{file}"), line);
    assert_eq!(
        findings,
        [
            warning("SKILL.md", 10),
            warning("SKILL.md", 13),
            warning("tests/fixtures/notion.json", 4)
        ],
        "{notes}"
    );
    assert_ne!(notes["decision"]["tier"], "auto", "{reasons}");
    let (_, text, _) = run(repo.skillgate(&["check", "--all"]));
    assert!(
        text.contains(&format!(
            "{DIR}/tests/fixtures/notion.json:4: warning[secret-example]: taken for an example, \
             not a secret: generic-secret Xk29… (in a test fixture); if it is real, remove and \
             rotate it"
        )),
        "{text}"
    );
}

/// `value` inside `quote`, with a backslash before what would end or escape it (`"`, `\`, and in
/// a shell's double quotes `$` and a backtick).
fn quoted(value: &str, quote: char, shell: bool) -> String {
    let mut out = String::from(quote);
    for c in value.chars() {
        if c == quote || c == '\\' || (shell && quote == '"' && matches!(c, '$' | '`')) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(quote);
    out
}

/// How a file writes its `i`-th value, as written (quoted).
type LineOf = fn(usize, &str) -> String;

/// Random 16-character passwords of every printable character but the space, as generators
/// make them, in the places skills keep them: none may be missed (issue #15 review, M2: a
/// third of them were taken for templates by a `<`, a `>`, a `...`, a `${` or a leading `(`).
#[test]
fn random_printable_passwords_are_all_found() {
    const COUNT: usize = 1000;
    let passwords: Vec<String> = (0..COUNT as u64)
        .map(|i| fake(PRINTABLE, 16, 10_000 + i))
        .collect();
    // As written in each file: single quotes in a shell when the value holds none.
    let shell = |v: &str| {
        if v.contains('\'') {
            quoted(v, '"', true)
        } else {
            format!("'{v}'")
        }
    };
    let files: [(&str, Vec<String>, LineOf); 3] = [
        (
            ".env",
            passwords.iter().map(|v| quoted(v, '"', false)).collect(),
            |i, v| format!("DB_PASSWORD_{i}={v}"),
        ),
        (
            "scripts/db.sh",
            passwords.iter().map(|v| shell(v)).collect(),
            |i, v| format!("export PGPASSWORD_{i}={v}"),
        ),
        (
            "scripts/db.py",
            passwords.iter().map(|v| quoted(v, '"', false)).collect(),
            |i, v| format!("conn_{i} = connect(host=\"db\", password={v})"),
        ),
    ];
    let mut missed = Vec::new();
    for (path, written, line) in &files {
        let text: Vec<String> = written
            .iter()
            .enumerate()
            .map(|(i, v)| line(i, v))
            .collect();
        let text = text.join("\n");
        let found = scan(&Sources::from_texts(&[(path, text.as_str())]));
        for (i, value) in written.iter().enumerate() {
            // The secret as written, inside its quotes.
            let secret = &value[1..value.len() - 1];
            let line_no = u32::try_from(i + 1).unwrap_or(0);
            let hit = found.iter().any(|f| {
                f.line == line_no
                    && f.rule == "generic-secret"
                    && f.level == Level::Error
                    && f.redacted == redacted_prefix(secret)
            });
            if !hit {
                missed.push(format!("{path}:{line_no} {secret}"));
            }
        }
        // Nothing else is found: one secret a line.
        assert!(found.len() <= COUNT, "{path}: {} findings", found.len());
    }
    let total = COUNT * files.len();
    println!(
        "random printable passwords: {total} ({COUNT} in each of .env, a shell script and \
         Python), false-negative rate {:.4} ({})",
        missed.len() as f64 / total as f64,
        missed.len()
    );
    assert_eq!(missed, Vec::<String>::new());
}

/// A JWT or a private key in a test fixture the skill does not run is the suite's: a warning
/// with the reason. Elsewhere, or in a test file the skill runs, it is an error.
#[test]
fn jwts_and_private_keys_in_test_fixtures_are_warnings() {
    let token = jwt("HS256", 43, 70);
    let key = pem("PRIVATE KEY", 2, 71);
    let cases = [
        (
            "tests/test_auth.py",
            "scripts/auth.py",
            format!("EXPIRED = \"{token}\"\n"),
            "jwt",
        ),
        (
            "tests/fixtures/test_signing_key.pem",
            "keys/signing_key.pem",
            key.clone(),
            "private-key",
        ),
    ];
    for (path, elsewhere, text, rule) in &cases {
        let found = scan(&Sources::from_texts(&[(path, text.as_str())]));
        let shown: Vec<(&str, Level, String)> = found
            .iter()
            .map(|f| {
                (
                    f.rule,
                    f.level,
                    f.example.map(|e| e.to_string()).unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [(*rule, Level::Warning, "in a test fixture".to_owned())],
            "{path}"
        );
        // The same file run by the skill, or outside the tests: an error.
        let mut sources = Sources::from_texts(&[(path, text.as_str())]);
        sources.files[0].run_by_skill = true;
        for sources in [sources, Sources::from_texts(&[(elsewhere, text.as_str())])] {
            let found = scan(&sources);
            assert!(
                found.len() == 1 && found[0].level == Level::Error && found[0].example.is_none(),
                "{}: {found:?}",
                sources.files[0].path
            );
        }
    }
    // A provider key stays an error in a test fixture.
    let provider = format!("{}{}", p("gh", "p_"), fake(ALNUM, 36, 72));
    let text = format!("TOKEN = \"{provider}\"\n");
    let found = scan(&Sources::from_texts(&[(
        "tests/test_api.py",
        text.as_str(),
    )]));
    assert!(
        found.len() == 1 && found[0].level == Level::Error,
        "{found:?}"
    );
}

/// The skill runs these test-looking files: what they hold is the skill's, not a fixture's
/// (issue #15 review, H4).
#[test]
fn a_test_file_the_skill_runs_or_sources_holds_real_secrets() {
    let repo = Repo::plain();
    let dir = ".claude/skills/warehouse";
    let password = fake(PRINTABLE, 16, 80).replace(['\'', '\\'], "k");
    let key = fake(ALNUM, 40, 81);
    repo.write(
        &format!("{dir}/SKILL.md"),
        "---\nname: warehouse\ndescription: Loads the warehouse and checks the billing API.\n---\n\
         # Warehouse\n\nLoad it with `bash scripts/run.sh`, then check the billing API:\n\n\
         ```bash\npython3 scripts/test_connection.py\n```\n",
    );
    repo.write(
        &format!("{dir}/scripts/run.sh"),
        "#!/bin/bash\nsource \"$(dirname \"$0\")/../tests/config.env\"\npsql -h db -U app -c 'select 1'\n",
    );
    repo.write(
        &format!("{dir}/tests/config.env"),
        &format!("DB_PASSWORD='{password}'\nAPI_KEY=\"{key}\"\n"),
    );
    repo.write(
        &format!("{dir}/scripts/test_connection.py"),
        &format!("import os\nAPI_KEY = \"{key}\"\nprint(len(API_KEY))\n"),
    );
    // The suite's own fixture, which nothing of the skill runs, stays a warning.
    repo.write(
        &format!("{dir}/tests/fixtures/users.json"),
        "{\"password\": \"Xk29vLqP7mZt\"}\n",
    );
    repo.write(
        &format!("{dir}/test.sh"),
        "echo '1..1'; echo 'ok 1 - warehouse'\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let warehouse = skill(&doc, "warehouse");
    let analysis = &warehouse["signals"]["analysis"];
    let shown = |v: &str| format!("{}…", &v[..4]);
    assert_eq!(
        analysis["secrets"],
        serde_json::json!([
            format!(
                "{dir}/scripts/test_connection.py:2 generic-secret {}",
                shown(&key)
            ),
            format!(
                "{dir}/tests/config.env:1 generic-secret {}",
                shown(&password)
            ),
            format!("{dir}/tests/config.env:2 generic-secret {}", shown(&key)),
        ]),
        "{analysis}"
    );
    assert_eq!(
        analysis["secret_warnings"],
        serde_json::json!([format!(
            "{dir}/tests/fixtures/users.json:1 generic-secret Xk29… (in a test fixture)"
        )]),
        "{analysis}"
    );
    assert_eq!(
        warehouse["decision"]["decision"], "needs_correction",
        "{}",
        warehouse["decision"]
    );
}
