#!/usr/bin/env node
'use strict';
// Turn a human title into a URL- and filename-safe slug.
// Usage as a library: const { slugify, uniqueSlug } = require('./slugify.js');
// Usage from a shell:  node scripts/slugify.js [--max N] [--sep C] "Some Title"

const DEFAULTS = Object.freeze({ separator: '-', maxLength: 60 });

// "Crème Brûlée & Co." -> ['creme', 'brulee', 'and', 'co']
function toWords(title) {
  const plain = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return plain
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['\u2019]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

// Keep whole words while the slug fits; cut the first word if it alone is too long.
function fitWords(words, maxLength, separator) {
  const kept = [];
  let length = 0;
  for (const word of words) {
    const added = kept.length === 0 ? word.length : separator.length + word.length;
    if (length + added > maxLength) break;
    kept.push(word);
    length += added;
  }
  return kept.length > 0 ? kept : [words[0].slice(0, maxLength)];
}

function slugify(title, options = {}) {
  if (typeof title !== 'string') {
    throw new TypeError('slugify: title must be a string');
  }
  const { separator, maxLength } = { ...DEFAULTS, ...options };
  const words = toWords(title);
  if (words.length === 0) return '';
  return fitWords(words, maxLength, separator).join(separator);
}

// Append -2, -3, ... until the slug is not in `taken` (a Set of existing slugs).
function uniqueSlug(title, taken, options = {}) {
  const base = slugify(title, options);
  const separator = options.separator || DEFAULTS.separator;
  let candidate = base;
  for (let n = 2; taken.has(candidate); n += 1) {
    candidate = `${base}${separator}${n}`;
  }
  return candidate;
}

// Parse CLI arguments: flags --max N and --sep C, the rest is the title.
function parseArgs(argv) {
  const options = {};
  const words = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--max') options.maxLength = Number(argv[++i]);
    else if (argv[i] === '--sep') options.separator = argv[++i];
    else words.push(argv[i]);
  }
  return { title: words.join(' '), options };
}

// Entry point for the command line; returns the exit code.
function main(argv, out, err) {
  const { title, options } = parseArgs(argv);
  if (title.trim() === '') {
    err.write('usage: slugify.js [--max N] [--sep C] TITLE...\n');
    return 2;
  }
  out.write(`${slugify(title, options)}\n`);
  return 0;
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2), process.stdout, process.stderr);
}

module.exports = { slugify, uniqueSlug, parseArgs, main };
