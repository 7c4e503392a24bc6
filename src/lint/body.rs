//! A `SKILL.md` body over 500 lines is a warning: the spec asks to keep it under that and move
//! detail into `references/`, which an agent loads only when it needs it (`skilo` W001).

use crate::skill::Finding;

/// The most lines a body should have.
pub const MAX_BODY_LINES: usize = 500;

/// `body` starts at line `body_line` of `file`; the finding stands at the first line too many.
pub fn check(body: &str, body_line: usize, file: &str) -> Option<Finding> {
    let lines = body.lines().count();
    (lines > MAX_BODY_LINES).then(|| {
        Finding::warning(
            "body-length",
            file,
            Some(body_line + MAX_BODY_LINES),
            format!(
                "the body is {lines} lines, over the {MAX_BODY_LINES} the spec recommends: move \
                 detail into `references/` files the agent reads when it needs them"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_500_lines_is_a_warning_at_line_501_of_the_body() {
        assert_eq!(check(&"x\n".repeat(500), 5, "SKILL.md"), None);
        let finding = check(&"x\n".repeat(501), 5, "SKILL.md").expect("warning");
        assert_eq!(finding.rule, "body-length");
        assert_eq!(finding.severity, crate::skill::Severity::Warning);
        assert_eq!(finding.line, Some(505));
        assert!(
            finding.message.starts_with("the body is 501 lines"),
            "{}",
            finding.message
        );
    }
}
