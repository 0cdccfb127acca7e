//! The BloscLZ compressor, ours against the reference's `blosclz_compress`, in one process:
//! each repetition calls both on the same block, one after the other, and the ratio of the
//! two times is taken per pair, so that this shared machine's slow and fast spells (which
//! move single timings by up to 2x) hit both sides of a pair alike. Prints, per data kind and
//! clevel, the median and quartiles of reference time / our time (above 1: ours faster)
//! and each side's best speed. The outputs are checked to be byte-identical.
//!
//! Usage: blosclz-pair [block_bytes [repetitions]]
use std::time::Instant;

extern "C" {
    fn blosclz_compress(clevel: i32, input: *const u8, length: i32, output: *mut u8, maxout: i32, ctx: *mut u8) -> i32;
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Byte planes of `items` (what the shuffle filter hands the codec).
fn planes<const T: usize>(items: &[[u8; T]]) -> Vec<u8> {
    (0..T).flat_map(|b| items.iter().map(move |e| e[b])).collect()
}

/// The data kinds of bench/bench.c, as one block of `n` bytes.
fn kinds(n: usize) -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = XorShift(88172645463325252);
    let ramp: Vec<[u8; 8]> = (0..n / 8).map(|i| (i as i64 * 3).to_le_bytes()).collect();
    let smooth: Vec<[u8; 4]> = (0..n / 4)
        .map(|i| ((i as f32 * 0.001).sin() + (rng.next() & 255) as f32 * 1e-7).to_le_bytes())
        .collect();
    let random: Vec<u8> = (0..n / 8).flat_map(|_| rng.next().to_le_bytes()).collect();
    vec![
        ("ramp-i64", ramp.concat()),
        ("ramp-i64/shuffled", planes(&ramp)),
        ("smooth-f32", smooth.concat()),
        ("smooth-f32/shuffled", planes(&smooth)),
        ("random", random),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(131072, |a| a.parse().expect("block bytes"));
    let reps: usize = args.get(2).map_or(1000, |a| a.parse().expect("repetitions"));
    // Optional: only the data kinds whose name is this, and only these clevels.
    let only = args.get(3).cloned();
    let clevels: Vec<i32> = args.get(4).map_or(vec![1, 5, 9], |a| a.split(',').map(|c| c.parse().expect("clevel")).collect());
    println!("{:<22} {:>6} {:>7} {:>8} {:>8} {:>8}  {:>9} {:>9}", "data", "clevel", "cbytes", "q1", "median", "q3", "ours GB/s", "ref GB/s");
    for (name, block) in kinds(n).into_iter().filter(|(name, _)| only.as_deref().is_none_or(|o| o == *name)) {
        for &clevel in &clevels {
            let (mut ours, mut theirs) = (vec![0u8; n], vec![0u8; n]);
            let (mut t_ours, mut t_ref, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            let (mut n_ours, mut n_ref) = (0, 0);
            // The library keeps one table per thread between streams (`compress_in`).
            let mut table = blosc2::codecs::blosclz::HashTable::new();
            for _ in 0..reps {
                let t = Instant::now();
                n_ours = blosc2::codecs::blosclz::compress_in(&mut table, clevel, &block, &mut ours);
                let a = t.elapsed().as_secs_f64();
                let t = Instant::now();
                // SAFETY: both buffers hold `n` bytes; the reference reads `length` bytes of
                // input and writes at most `maxout` bytes of output.
                n_ref = unsafe { blosclz_compress(clevel, block.as_ptr(), n as i32, theirs.as_mut_ptr(), n as i32, std::ptr::null_mut()) } as usize;
                let b = t.elapsed().as_secs_f64();
                t_ours.push(a);
                t_ref.push(b);
                ratios.push(b / a);
            }
            assert_eq!(ours[..n_ours], theirs[..n_ref], "{name} clevel {clevel}: outputs differ");
            for v in [&mut t_ours, &mut t_ref, &mut ratios] {
                v.sort_by(f64::total_cmp);
            }
            let gbps = |t: f64| n as f64 / t / 1e9;
            println!(
                "{name:<22} {clevel:>6} {n_ours:>7} {:>8.3} {:>8.3} {:>8.3}  {:>9.2} {:>9.2}",
                ratios[reps / 4], ratios[reps / 2], ratios[3 * reps / 4], gbps(t_ours[0]), gbps(t_ref[0])
            );
        }
    }
}
