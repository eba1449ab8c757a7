//! Walks: the interface every engine is walked through, the token sequences every engine
//! follows, and timing masks along them.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::report::EngineResult;

/// A compiled constraint being walked, the way a decoder drives it: per step write a
/// full-width bitset of allowed tokens and consume the sampled token; after a complete
/// match, restart.
pub trait Constraint {
    /// Writes the allowed next tokens into `mask` (cleared first), token `i` at bit
    /// `i % 32` of word `i / 32`.
    fn fill_mask(&mut self, mask: &mut [u32]) -> Result<()>;
    /// Advances by `token`.
    fn consume(&mut self, token: u32) -> Result<()>;
    /// Back to the start state, keeping whatever was compiled or cached.
    fn restart(&mut self) -> Result<()>;
}

/// One thing a decoder does at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Fill the mask (timed).
    Mask,
    /// Take this token.
    Consume(u32),
    /// The text matched completely and EOS was taken: start the constraint again.
    Restart,
}

/// The events of a walk with `steps` masks: each sample's tokens in turn, a mask before
/// every token and one more in the accepting state after the last (where EOS is allowed),
/// then a restart; the samples repeat until there are `steps` masks.
pub fn schedule(samples: &[Vec<u32>], steps: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut masks = 0;
    if samples.is_empty() {
        return events;
    }
    'outer: loop {
        for sample in samples {
            for &t in sample {
                events.push(Event::Mask);
                masks += 1;
                if masks == steps {
                    break 'outer;
                }
                events.push(Event::Consume(t));
            }
            events.push(Event::Mask);
            masks += 1;
            if masks == steps {
                break 'outer;
            }
            events.push(Event::Restart);
        }
    }
    events
}

/// What one pass of an engine along a walk gave.
pub struct Pass {
    /// Time of each mask, in walk order (failed steps left out).
    pub mask_times: Vec<Duration>,
    /// Time of each token consumed, in walk order (refused tokens left out).
    pub consume_times: Vec<Duration>,
    /// The mask of each step, `None` where the engine failed earlier in the same sample.
    pub masks: Vec<Option<Vec<u32>>>,
    /// Errors met (a token refused, a mask that failed), with the step they happened at.
    pub errors: Vec<(usize, String)>,
}

/// Walks `events` with `engine` from its start state, timing every mask; keeps the masks
/// when `keep_masks`.
pub fn run(engine: &mut dyn Constraint, events: &[Event], width: usize, keep_masks: bool) -> Pass {
    let mut mask = vec![0u32; width];
    let mut pass = Pass {
        mask_times: Vec::new(),
        consume_times: Vec::new(),
        masks: Vec::new(),
        errors: Vec::new(),
    };
    if let Err(e) = engine.restart() {
        pass.errors.push((0, e.to_string()));
        return pass;
    }
    let mut failed = false;
    for &event in events {
        let step = pass.masks.len();
        match event {
            Event::Mask => {
                if failed {
                    pass.masks.push(None);
                    continue;
                }
                let started = Instant::now();
                let result = engine.fill_mask(&mut mask);
                let elapsed = started.elapsed();
                match result {
                    Ok(()) => {
                        pass.mask_times.push(elapsed);
                        pass.masks.push(keep_masks.then(|| mask.clone()));
                    }
                    Err(e) => {
                        pass.errors.push((step, e.to_string()));
                        pass.masks.push(None);
                        failed = true;
                    }
                }
            }
            Event::Consume(t) => {
                if !failed {
                    let started = Instant::now();
                    let result = engine.consume(t);
                    let elapsed = started.elapsed();
                    match result {
                        Ok(()) => pass.consume_times.push(elapsed),
                        Err(e) => {
                            pass.errors.push((step.saturating_sub(1), e.to_string()));
                            failed = true;
                        }
                    }
                }
            }
            Event::Restart => {
                if let Err(e) = engine.restart() {
                    pass.errors.push((step, e.to_string()));
                    failed = true;
                } else {
                    failed = false;
                }
            }
        }
    }
    pass
}

/// p50, p99 and max of `times`, in microseconds.
pub fn percentiles(times: &[Duration]) -> Option<(f64, f64, f64)> {
    if times.is_empty() {
        return None;
    }
    let mut us: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    us.sort_by(f64::total_cmp);
    let at = |q: f64| us[((q * us.len() as f64).ceil() as usize).clamp(1, us.len()) - 1];
    Some((at(0.50), at(0.99), us[us.len() - 1]))
}

/// The fastest of `first` and `runs - 1` more runs of `compile`, which are run after the
/// engine of the first run was measured (so its first mask stays cold) and dropped. Every
/// engine gets the same number of tries, so one preempted run does not decide a ratio.
pub fn fastest<T>(
    first: Duration,
    runs: usize,
    mut compile: impl FnMut() -> Result<(T, Duration)>,
) -> Result<Duration> {
    let mut best = first;
    for _ in 1..runs {
        best = best.min(compile()?.1);
    }
    Ok(best)
}

/// The least CPU time this thread spent in one of `runs` calls of `run` (`None` where the
/// system does not say: Linux's `/proc/thread-self/schedstat`). On a shared machine a
/// compile's wall time counts the other processes' turns; its CPU time does not.
pub fn fastest_cpu<T>(runs: usize, mut run: impl FnMut() -> Result<T>) -> Result<Option<Duration>> {
    let mut best: Option<Duration> = None;
    for _ in 0..runs.max(1) {
        let before = thread_cpu();
        run()?;
        let (Some(a), Some(b)) = (before, thread_cpu()) else {
            return Ok(None);
        };
        best = Some(best.map_or(b - a, |x| x.min(b - a)));
    }
    Ok(best)
}

/// This thread's CPU time so far. The kernel brings the figure up to date at a scheduler
/// tick (4 ms here) or when the thread yields: so it yields first.
fn thread_cpu() -> Option<Duration> {
    std::thread::yield_now();
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Warm passes per walk; each step's warm time is its fastest pass, which filters out
/// the other processes of a shared machine.
const WARM_PASSES: usize = 5;

/// A cold pass along the walk (right after compiling; its masks are kept for the
/// cross-check), then `WARM_PASSES` passes from a restart, where whatever the engine
/// cached stays.
pub fn measure(
    name: &'static str,
    engine: &mut dyn Constraint,
    compile: Duration,
    artifact: Option<usize>,
    events: &[Event],
    width: usize,
) -> EngineResult {
    let cold = run(engine, events, width, true);
    let mut fastest: Vec<Duration> = Vec::new();
    let mut fastest_consume: Vec<Duration> = Vec::new();
    for _ in 0..WARM_PASSES {
        let pass = run(engine, events, width, false);
        if pass.mask_times.len() != cold.mask_times.len()
            || pass.consume_times.len() != cold.consume_times.len()
        {
            // The engine failed differently on this pass: keep the cold numbers only.
            fastest.clear();
            fastest_consume.clear();
            break;
        }
        keep_fastest(&mut fastest, pass.mask_times);
        keep_fastest(&mut fastest_consume, pass.consume_times);
    }
    let warm = fastest;
    EngineResult {
        consume: percentiles(&fastest_consume),
        name,
        compile,
        artifact,
        shape: None,
        first_mask: cold.mask_times.first().copied(),
        cold: percentiles(&cold.mask_times),
        warm: percentiles(&warm),
        errors: cold.errors,
        masks: cold.masks,
    }
}

/// Each step's fastest time so far: `fastest` (empty at first) and one more pass's times.
fn keep_fastest(fastest: &mut Vec<Duration>, pass: Vec<Duration>) {
    if fastest.is_empty() {
        *fastest = pass;
    } else {
        for (f, t) in fastest.iter_mut().zip(pass) {
            *f = (*f).min(t);
        }
    }
}
