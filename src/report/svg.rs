//! Inline SVG charts for the HTML report: drawn from numbers only, every label escaped.
