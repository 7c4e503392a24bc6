'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { slugify, uniqueSlug, parseArgs, main } = require('../scripts/slugify.js');

// A stand-in for process.stdout / process.stderr that keeps what was written.
function sink() {
  const chunks = [];
  return { write: (text) => chunks.push(text), text: () => chunks.join('') };
}

test('lower-cases and joins words with hyphens', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('drops punctuation and collapses separators', () => {
  assert.equal(slugify('  Ship it!!  (v2.0) -- now  '), 'ship-it-v2-0-now');
});

test('folds accents and spells out ampersands', () => {
  assert.equal(slugify('Crème Brûlée & Co.'), 'creme-brulee-and-co');
});

test('removes apostrophes instead of splitting on them', () => {
  assert.equal(slugify("Don't Panic"), 'dont-panic');
  assert.equal(slugify('It\u2019s here'), 'its-here');
});

test('returns an empty string when nothing is left', () => {
  assert.equal(slugify('!!! ???'), '');
  assert.equal(slugify(''), '');
});

test('honours a custom separator', () => {
  assert.equal(slugify('Release Notes 2024', { separator: '_' }), 'release_notes_2024');
});

test('keeps whole words within maxLength', () => {
  assert.equal(slugify('one two three four', { maxLength: 9 }), 'one-two');
  assert.equal(slugify('one two three four', { maxLength: 13 }), 'one-two-three');
});

test('cuts a single word that is longer than maxLength', () => {
  assert.equal(slugify('Supercalifragilistic tale', { maxLength: 5 }), 'super');
});

test('rejects non-string titles', () => {
  assert.throws(() => slugify(42), TypeError);
  assert.throws(() => slugify(undefined), /title must be a string/);
});

test('uniqueSlug returns the plain slug when it is free', () => {
  assert.equal(uniqueSlug('My Post', new Set(['other'])), 'my-post');
});

test('uniqueSlug appends the first free counter', () => {
  const taken = new Set(['my-post', 'my-post-2']);
  assert.equal(uniqueSlug('My Post', taken), 'my-post-3');
  assert.equal(uniqueSlug('My Post', new Set(['my_post']), { separator: '_' }), 'my_post_2');
});

test('parseArgs separates flags from title words', () => {
  assert.deepEqual(parseArgs(['--max', '10', 'A', 'B', '--sep', '.']), {
    title: 'A B',
    options: { maxLength: 10, separator: '.' },
  });
});

test('main prints the slug and returns 0', () => {
  const out = sink();
  const err = sink();
  assert.equal(main(['--sep', '_', 'Quarterly', 'Report'], out, err), 0);
  assert.equal(out.text(), 'quarterly_report\n');
  assert.equal(err.text(), '');
});

test('main prints usage and returns 2 without a title', () => {
  const out = sink();
  const err = sink();
  assert.equal(main(['--max', '5'], out, err), 2);
  assert.equal(out.text(), '');
  assert.match(err.text(), /^usage: slugify\.js/);
});
