//! `skillgate parse`: what the gate reads from a report, printed in the seed's schema.

mod common;

use common::{run, skillgate};

fn fixture(rel: &str) -> String {
    format!(
        "{}/tests/fixtures/reports/{rel}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn parse(args: &[&str]) -> (i32, serde_json::Value, String) {
    let mut cmd = skillgate();
    cmd.arg("parse").args(args);
    let (code, stdout, stderr) = run(cmd);
    let doc = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (code, doc, stderr)
}

#[test]
fn a_report_prints_the_seed_schema() {
    let (code, doc, stderr) = parse(&[&fixture("junit/pytest-xunit2.xml")]);
    assert_eq!(code, 0, "{stderr}");
    let tests = &doc["tests"];
    for key in [
        "framework",
        "pass_count",
        "fail_count",
        "skip_count",
        "total_count",
        "pass_rate",
        "duration_ms",
        "timestamp",
        "failed_tests",
    ] {
        assert!(tests.get(key).is_some(), "{key} missing: {tests}");
    }
    // pytest's own summary: 4 failed, 2 passed, 1 skipped, 1 xfailed, 1 error.
    assert_eq!(tests["pass_count"], 2);
    assert_eq!(tests["fail_count"], 5);
    assert_eq!(tests["skip_count"], 2);
    assert_eq!(tests["total_count"], 9);
    assert_eq!(tests["failed_tests"][0]["name"], "test_fails_assertion");
    assert_eq!(tests["failed_tests"][0]["kind"], "assertion");
}

#[test]
fn several_files_are_one_run_and_coverage_is_added() {
    let (code, doc, stderr) = parse(&[
        &fixture("tap/node.tap"),
        &fixture("summary/stdout.txt"),
        "--coverage",
        &fixture("lcov/node.info"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // node.tap: 4 passed, 3 failed, 2 skipped; the closing line: 3 passed, 1 failed, 2 skipped.
    assert_eq!(doc["tests"]["pass_count"], 7);
    assert_eq!(doc["tests"]["fail_count"], 4);
    assert_eq!(doc["tests"]["skip_count"], 4);
    assert_eq!(doc["coverage"]["lines_covered"], 65);
    assert_eq!(doc["coverage"]["lines_total"], 66);
    assert_eq!(doc["tests"]["coverage"], "98.5%");
}

#[test]
fn format_forces_one_reader() {
    let (code, doc, _) = parse(&["--format", "summary", &fixture("tap/node.tap")]);
    assert_eq!(code, 2, "node's TAP has no plain closing line: {doc}");
    let (code, doc, stderr) = parse(&["--format", "tap", &fixture("tap/node.tap")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["tests"]["framework"], "tap");
}

#[test]
fn what_is_not_a_report_and_what_is_broken_say_so() {
    let (code, _, stderr) = parse(&[&fixture("lcov/node.info")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no test results found in"), "{stderr}");
    assert!(stderr.contains("help: pass --format"), "{stderr}");

    let (code, _, stderr) = parse(&[&fixture("junit/truncated.xml")]);
    assert_eq!(code, 1);
    assert!(stderr.contains("truncated.xml: line 15:"), "{stderr}");

    let (code, _, stderr) = parse(&["--coverage", &fixture("tap/node.tap")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("is not a coverage report"), "{stderr}");

    let (code, _, stderr) = parse(&["/no/such/file.xml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("/no/such/file.xml is not a file"),
        "{stderr}"
    );
}

#[test]
fn flaky_tests_are_listed_and_counted_as_passed() {
    let (code, doc, stderr) = parse(&[&fixture("junit/nextest.xml")]);
    assert_eq!(code, 0, "{stderr}");
    // nextest's own summary: 4 passed (1 flaky), 1 failed (it leaves ignored tests out).
    assert_eq!(doc["tests"]["pass_count"], 4);
    assert_eq!(doc["tests"]["fail_count"], 1);
    assert_eq!(
        doc["tests"]["flaky_tests"],
        serde_json::json!(["tests::flaky_on_first_run"])
    );
}

#[test]
fn adhoc_shell_tallies_are_read() {
    let (code, doc, stderr) = parse(&[&fixture("adhoc/counters.stdout")]);
    assert_eq!(code, 0, "{stderr}");
    // counters.expected, written by the harness itself: 6 passed, 2 failed.
    assert_eq!(doc["tests"]["framework"], "adhoc");
    assert_eq!(doc["tests"]["pass_count"], 6);
    assert_eq!(doc["tests"]["fail_count"], 2);
}

#[test]
fn every_coverage_format_is_read_by_content() {
    // Each tool's own total: coverage.py `TOTAL 36 4`, nyc `Lines (7/11)`, go `total:
    // (statements) 66.7%` (10 of 15 statements), JaCoCo `LINE covered=17 missed=7`.
    for (file, format, unit, covered, total) in [
        ("cobertura/coveragepy.xml", "cobertura", "lines", 32, 36),
        ("istanbul/nyc-summary.json", "istanbul", "lines", 7, 11),
        ("coveragepy/coverage.json", "coverage-py", "lines", 32, 36),
        ("gocover/set.out", "go-cover", "statements", 10, 15),
        ("jacoco/jacoco.xml", "jacoco", "lines", 17, 24),
    ] {
        let (code, doc, stderr) = parse(&["--coverage", &fixture(file)]);
        assert_eq!(code, 0, "{file}: {stderr}");
        assert_eq!(doc["coverage"]["format"], format, "{file}");
        assert_eq!(doc["coverage"]["unit"], unit, "{file}");
        assert_eq!(
            doc["coverage"][format!("{unit}_covered")],
            covered,
            "{file}"
        );
        assert_eq!(doc["coverage"][format!("{unit}_total")], total, "{file}");
    }
}

#[test]
fn utf16_reports_and_broken_bytes_in_messages_still_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original =
        std::fs::read_to_string(fixture("junit/pytest-xunit2.xml")).expect("fixture is UTF-8");
    let utf16 = dir.path().join("utf16.xml");
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(original.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(&utf16, bytes).expect("write");
    let broken = dir.path().join("broken.xml");
    let mut bytes = original.into_bytes();
    let at = bytes
        .windows(14)
        .position(|w| w == b"AssertionError")
        .expect("a message");
    bytes.insert(at + 9, 0xFF);
    std::fs::write(&broken, bytes).expect("write");
    for file in [&utf16, &broken] {
        let (code, doc, stderr) = parse(&[file.to_str().expect("utf8 path")]);
        assert_eq!(code, 0, "{}: {stderr}", file.display());
        assert_eq!(doc["tests"]["pass_count"], 2, "{}", file.display());
        assert_eq!(doc["tests"]["fail_count"], 5, "{}", file.display());
    }
    let (_, doc, _) = parse(&[broken.to_str().expect("utf8 path")]);
    assert!(
        doc["tests"]["failed_tests"][0]["error"]
            .as_str()
            .is_some_and(|m| m.starts_with("Assertion\u{fffd}Error")),
        "{doc}"
    );
}

#[test]
fn a_closing_summary_above_the_itemised_reading_is_the_floor() {
    // A TAP stream of two passes, then a closing line that says one more test failed.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("out.txt");
    std::fs::write(
        &file,
        "1..2\nok 1 - a\nok 2 - b\nResults: 2 passed, 1 failed\n",
    )
    .expect("write");
    let (code, doc, stderr) = parse(&[file.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["tests"]["format"], "tap");
    assert_eq!(
        (&doc["tests"]["pass_count"], &doc["tests"]["fail_count"]),
        (&serde_json::json!(2), &serde_json::json!(1))
    );
    let finding = doc["report_disagrees"].as_str().expect("a finding");
    assert!(
        finding.starts_with("read 2 passed, 0 failed, 0 skipped from ")
            && finding.ends_with(
                "(tap); the plain closing line in out.txt says 2 passed, 1 failed, 0 skipped; \
                 counted 2 passed, 1 failed, 0 skipped"
            ),
        "{finding}"
    );
}
