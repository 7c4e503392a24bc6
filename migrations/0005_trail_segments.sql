-- Sealed segments: on the audit branch the trail is this database (the registry: skills,
-- templates, mappings, the bootstrap registry, the mutable tables) plus append-only segment
-- files holding approval_history's rows, `trail/000001.db`, `trail/000002.db`, … beside it.
-- The registry's own approval_history stays empty there; its sqlite_sequence row keeps issuing
-- ids after the last row of the last segment.
--
-- One row per segment, in order. The newest is open (sealed_at NULL): each run rewrites it with
-- its rows added. Once it passes `[audit] segment-size` it is sealed: never written again, its
-- file's sha256 and last row recorded here. The next segment's first row chains to that row
-- (prev_hash), so the hash chain runs across files, and a sealed file that goes missing, is
-- replaced or changes places shows.
--
-- A single local database (`--db FILE`, `audit export`) holds every row itself and no row here.

CREATE TABLE trail_segments (
    seq INTEGER PRIMARY KEY CHECK (seq BETWEEN 1 AND 999999),
    -- The chain's hash before the segment's first row (the previous segment's last row_hash).
    prev_hash TEXT NOT NULL,
    -- The ids of its first and last rows, and how many; NULL and 0 while it has none.
    first_id INTEGER,
    last_id INTEGER,
    last_hash TEXT,
    rows INTEGER NOT NULL DEFAULT 0,
    -- The file as committed: its size in bytes, and its sha256 once sealed.
    bytes INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT,
    -- The time of its newest row (never later than when it was written): a run reads a sealed
    -- segment only when this is recent enough to hold a row it looks for.
    newest_at TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    sealed_at TEXT
);
