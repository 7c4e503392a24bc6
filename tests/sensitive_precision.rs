//! Security sensitivity on the word and on the use (issue #15, point 6): a word inside a string
//! literal, a regex, a heredoc or a message is not a use, and what builds, loads or injects
//! native code, sets setuid bits, writes `/etc` or runs a download is flagged with its file and
//! line, however it is written: fed to an interpreter through a heredoc or a here-string,
//! behind quotes, paths, variables or a `cd`, in a call split over lines, or in an untagged
//! block of `SKILL.md`. The skills are `tests/fixtures/sensitive/` (see its README), each gated in a
//! repository of its own next to a suite that passes, so a flag is the only thing that moves
//! its tier.

mod common;

use std::path::Path;

use common::{Repo, run_json, skill};

/// Where the fixture skill goes in the repository.
fn dir(name: &str) -> String {
    format!(".claude/skills/{name}")
}

/// The fixture skill `name` written into a fresh repository with 20 passing TAP tests and full
/// coverage: its tier, security-sensitive rows, dynamic-code rows and decision reasons, paths
/// relative to the skill.
fn gate(name: &str) -> (String, Vec<String>, Vec<String>, String) {
    let repo = Repo::plain();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sensitive");
    let mut stack = vec![fixture.join(name)];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("fixture dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&fixture).expect("inside the fixtures");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let rel = rel.strip_prefix(name).unwrap_or(&rel);
            let text = std::fs::read_to_string(&path).expect("fixture text");
            repo.write(&format!("{}{rel}", dir(name)), &text);
        }
    }
    let mut suite = String::from(
        "printf 'SF:lib.sh\\nDA:1,1\\nDA:2,1\\nend_of_record\\n' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..20'\n",
    );
    for i in 1..=20 {
        suite.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
    }
    repo.write(&format!("{}/test.sh", dir(name)), &suite);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let x = skill(&doc, name);
    let analysis = &x["signals"]["analysis"];
    let rows = |key: &str| -> Vec<String> {
        analysis[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str())
                    .map(|row| row.replace(&format!("{}/", dir(name)), ""))
                    .collect()
            })
            .unwrap_or_default()
    };
    (
        x["decision"]["tier"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        rows("security_sensitive"),
        rows("dynamic_code"),
        x["decision"]["reasons"].to_string(),
    )
}

#[test]
fn words_in_patterns_messages_and_heredocs_are_not_uses() {
    let (tier, sensitive, dynamic, reasons) = gate("false-alarms");
    assert_eq!(sensitive, Vec::<String>::new());
    assert_eq!(dynamic, Vec::<String>::new());
    assert!(reasons.contains("no security-sensitive code"), "{reasons}");
    assert_eq!(tier, "auto", "{reasons}");
}

#[test]
fn native_code_injection_setuid_etc_writes_and_downloads_run_are_flagged_with_their_line() {
    let (tier, sensitive, dynamic, reasons) = gate("true-uses");
    assert_eq!(
        sensitive,
        vec![
            "privilege: sudo (SKILL.md:11)",
            "native code: loads trace.node (scripts/load.js:2)",
            "native code: process.dlopen (scripts/load.js:4)",
            "privilege: sudo (scripts/load.js:5)",
            "native code: ctypes.CDLL (scripts/load.py:5)",
            "library injection: sets LD_PRELOAD (scripts/load.py:6)",
            "native code: cc -o probe.so (scripts/load.py:7)",
            "privilege: sudo (scripts/load.py:8)",
            "native code: modprobe (kernel module) (scripts/load.py:8)",
            "system files: writes /etc/trace.conf (scripts/load.py:9)",
            "privilege: setuid/setgid chmod 0o4755 (scripts/load.py:11)",
            "native code: gcc -o shim.so (scripts/shim.sh:3)",
            "library injection: sets LD_PRELOAD (scripts/shim.sh:4)",
            "library injection: sets LD_LIBRARY_PATH (scripts/shim.sh:5)",
            "library injection: sets DYLD_INSERT_LIBRARIES (scripts/shim.sh:6)",
            "privilege: sudo (scripts/shim.sh:7)",
            "native code: insmod (kernel module) (scripts/shim.sh:7)",
            "native code: modprobe (kernel module) (scripts/shim.sh:8)",
            "privilege: setuid/setgid chmod u+s (scripts/shim.sh:9)",
            "privilege: setuid/setgid chmod 4755 (scripts/shim.sh:10)",
            "privilege: setuid/setgid chmod +s (scripts/shim.sh:11)",
            "system files: writes /etc/hosts (scripts/shim.sh:12)",
            "system files: writes /etc/trace.conf (scripts/shim.sh:13)",
            "system files: writes /etc/trace/trace.conf (scripts/shim.sh:14)",
            "system files: writes /etc/trace/level.conf (scripts/shim.sh:15)",
            "remote code: curl | sh (scripts/shim.sh:16)",
            "remote code: wget | bash (scripts/shim.sh:17)",
        ]
    );
    // A download piped into a shell is remote code, once: not also "code piped into sh".
    assert_eq!(dynamic, Vec::<String>::new());
    assert!(
        reasons.contains(
            "security-sensitive code: privilege: sudo (.claude/skills/true-uses/SKILL.md:11), "
        ),
        "{reasons}"
    );
    assert_eq!(tier, "human", "{reasons}");
}

#[test]
fn uses_hidden_in_heredocs_quotes_paths_split_calls_and_untagged_blocks_are_flagged() {
    let (tier, sensitive, _, reasons) = gate("hidden-uses");
    assert_eq!(
        sensitive,
        vec![
            "privilege: sudo (SKILL.md:13)",
            "remote code: curl | bash (SKILL.md:13)",
            "privilege: sudo (scripts/feed.sh:4)",
            "privilege: doas (scripts/feed.sh:7)",
            "privilege: pkexec (scripts/feed.sh:11)",
            "remote code: curl | sh (scripts/feed.sh:14)",
            "library injection: sets LD_PRELOAD (scripts/paths.sh:3)",
            "library injection: sets LD_AUDIT (scripts/paths.sh:4)",
            "system files: writes /etc/hosts (scripts/paths.sh:5)",
            "system files: writes /etc/motd (scripts/paths.sh:6)",
            "system files: writes /etc (scripts/paths.sh:7)",
            "system files: writes /etc/services (scripts/paths.sh:8)",
            "system files: writes /etc/protocols (scripts/paths.sh:9)",
            "privilege: setuid/setgid chmod 04755 (scripts/paths.sh:10)",
            "privilege: setuid/setgid chmod 6755 (scripts/paths.sh:11)",
            "privilege: setuid/setgid chmod u+s (scripts/paths.sh:12)",
            "library injection: sets LD_LIBRARY_PATH (scripts/paths.sh:14)",
            "system files: writes /etc/hosts.allow (scripts/paths.sh:15)",
            "privilege: sudo (scripts/split.js:4)",
            "privilege: doas (scripts/split.js:10)",
            "system files: writes /etc/helper.conf (scripts/split.js:12)",
            "privilege: sudo (scripts/split.py:5)",
            "privilege: doas (scripts/split.py:10)",
            "privilege: pkexec (scripts/split.py:11)",
            "system files: writes /etc/hosts.deny (scripts/split.py:12)",
        ]
    );
    assert_eq!(tier, "human", "{reasons}");
}
