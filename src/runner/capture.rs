//! A suite's output captured to a file with a cap: the first half of the cap is written as it
//! arrives, the last half goes round a ring file beside it, and the two are joined at the end
//! with a line saying how much was cut. Memory stays one read buffer, whatever the suite prints.

use std::io::SeekFrom;
use std::path::Path;

use tokio::fs::File;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

const BUFFER_BYTES: usize = 64 * 1024;

/// Copy `stream` to `path`, keeping its first and last `cap / 2` bytes; returns the bytes seen.
/// A stream that cannot be written is still read to its end, so the suite never blocks on a
/// full pipe.
pub(super) async fn capture<R: AsyncRead + Unpin>(stream: Option<R>, path: &Path, cap: u64) -> u64 {
    let Some(mut stream) = stream else {
        return 0;
    };
    let mut sink = Sink::create(path, cap).await.ok();
    let mut seen: u64 = 0;
    let mut buf = vec![0u8; BUFFER_BYTES];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        seen += n as u64;
        if let Some(writer) = &mut sink
            && writer
                .write(buf.get(..n).unwrap_or_default())
                .await
                .is_err()
        {
            sink = None;
        }
    }
    if let Some(writer) = sink {
        // Best effort: the head is on disk already.
        let _ = writer.finish(seen, &mut buf).await;
    }
    seen
}

/// Where captured bytes go: the head to the file, the tail round a ring.
struct Sink {
    file: File,
    /// Where the ring file goes: beside the capture.
    dir: std::path::PathBuf,
    head_cap: u64,
    head_written: u64,
    tail_cap: u64,
    /// The tail's bytes, at `ring_pos`, wrapping at `tail_cap`; created on first use.
    ring: Option<File>,
    ring_pos: u64,
    ring_len: u64,
}

impl Sink {
    async fn create(path: &Path, cap: u64) -> std::io::Result<Self> {
        let head_cap = cap / 2;
        Ok(Self {
            file: File::create(path).await?,
            dir: path
                .parent()
                .filter(|dir| !dir.as_os_str().is_empty())
                .map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf),
            head_cap,
            head_written: 0,
            tail_cap: cap - head_cap,
            ring: None,
            ring_pos: 0,
            ring_len: 0,
        })
    }

    async fn write(&mut self, mut chunk: &[u8]) -> std::io::Result<()> {
        if self.head_written < self.head_cap {
            let room = usize::try_from(self.head_cap - self.head_written).unwrap_or(usize::MAX);
            let (head, rest) = chunk.split_at(room.min(chunk.len()));
            self.file.write_all(head).await?;
            self.head_written += head.len() as u64;
            chunk = rest;
        }
        if self.tail_cap == 0 || chunk.is_empty() {
            return Ok(());
        }
        // Only the last `tail_cap` bytes of a chunk can survive.
        let keep = usize::try_from(self.tail_cap).unwrap_or(usize::MAX);
        if chunk.len() > keep {
            chunk = chunk.get(chunk.len() - keep..).unwrap_or_default();
        }
        if self.ring.is_none() {
            let dir = self.dir.clone();
            let ring = tokio::task::spawn_blocking(move || tempfile::tempfile_in(dir))
                .await
                .map_err(std::io::Error::other)??;
            self.ring = Some(File::from_std(ring));
        }
        let Some(ring) = &mut self.ring else {
            return Ok(());
        };
        while !chunk.is_empty() {
            let room = usize::try_from(self.tail_cap - self.ring_pos).unwrap_or(usize::MAX);
            let (part, rest) = chunk.split_at(room.min(chunk.len()));
            ring.seek(SeekFrom::Start(self.ring_pos)).await?;
            ring.write_all(part).await?;
            self.ring_pos = (self.ring_pos + part.len() as u64) % self.tail_cap;
            self.ring_len = (self.ring_len + part.len() as u64).min(self.tail_cap);
            chunk = rest;
        }
        Ok(())
    }

    /// Append the tail (oldest byte first) after a line saying how much was cut.
    async fn finish(mut self, seen: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let cut = seen - self.head_written - self.ring_len;
        if cut > 0 {
            let marker = format!("\n[skillgate: {cut} bytes of output cut here]\n");
            self.file.write_all(marker.as_bytes()).await?;
        }
        if let Some(mut ring) = self.ring.take() {
            ring.flush().await?;
            // Full ring: oldest at `ring_pos`. Partial ring: oldest at 0.
            let start = if self.ring_len == self.tail_cap {
                self.ring_pos
            } else {
                0
            };
            let first = self.ring_len.min(self.tail_cap - start);
            copy_range(&mut ring, start, first, &mut self.file, buf).await?;
            copy_range(&mut ring, 0, self.ring_len - first, &mut self.file, buf).await?;
        }
        self.file.flush().await
    }
}

async fn copy_range(
    from: &mut File,
    start: u64,
    mut len: u64,
    to: &mut File,
    buf: &mut [u8],
) -> std::io::Result<()> {
    from.seek(SeekFrom::Start(start)).await?;
    while len > 0 {
        let want = usize::try_from(len).unwrap_or(usize::MAX).min(buf.len());
        let Some(part) = buf.get_mut(..want) else {
            break;
        };
        from.read_exact(part).await?;
        to.write_all(part).await?;
        len -= want as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Capture `bytes` delivered in `step`-byte reads with `cap`.
    fn captured(bytes: &[u8], step: usize, cap: u64) -> (Vec<u8>, u64) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.txt");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut builder = tokio_test_reader(bytes, step);
        let seen = runtime.block_on(capture(Some(&mut builder), &path, cap));
        (std::fs::read(&path).expect("captured file"), seen)
    }

    /// A reader handing out `step` bytes at a time.
    fn tokio_test_reader(bytes: &[u8], step: usize) -> impl AsyncRead + Unpin + '_ {
        struct Trickle<'a>(&'a [u8], usize);
        impl AsyncRead for Trickle<'_> {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                let n = self.1.min(self.0.len()).min(buf.remaining());
                let (now, later) = self.0.split_at(n);
                buf.put_slice(now);
                self.0 = later;
                std::task::Poll::Ready(Ok(()))
            }
        }
        Trickle(bytes, step)
    }

    #[test]
    fn short_output_is_kept_whole() {
        for step in [1, 3, 1000] {
            let (out, seen) = captured(b"hello\nworld\n", step, 100);
            assert_eq!(out, b"hello\nworld\n");
            assert_eq!(seen, 12);
        }
    }

    #[test]
    fn long_output_keeps_head_and_tail_around_a_marker() {
        let input: Vec<u8> = (0..10_000u32)
            .flat_map(|i| format!("{i:05}\n").into_bytes())
            .collect();
        for step in [1, 7, 4096, 100_000] {
            let (out, seen) = captured(&input, step, 1000);
            assert_eq!(seen, input.len() as u64);
            let text = String::from_utf8(out).expect("utf8");
            let (head, rest) = text.split_once("\n[skillgate: ").expect("a marker");
            let (marker, tail) = rest.split_once("]\n").expect("marker end");
            assert_eq!(head.as_bytes(), &input[..500], "read {step} at a time");
            assert_eq!(tail.as_bytes(), &input[input.len() - 500..]);
            assert_eq!(marker, "59000 bytes of output cut here");
        }
    }

    #[test]
    fn output_just_over_the_head_has_no_marker() {
        let input = b"0123456789abcdef";
        let (out, _) = captured(input, 3, 20);
        assert_eq!(out, input);
        let (out, _) = captured(input, 5, 10);
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            "01234\n[skillgate: 6 bytes of output cut here]\nbcdef"
        );
    }
}
