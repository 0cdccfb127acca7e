fn main() {
    let p = std::env::args().nth(1).unwrap();
    match blosc2::schunk::SuperChunk::open(std::path::Path::new(&p), 0) {
        Ok(mut s) => {
            println!("ok nchunks {}", s.nchunks());
            for i in 0..s.nchunks() {
                let mut out = vec![0u8; 16000];
                if let Err(e) = s.decompress_chunk(i, &mut out) { println!("chunk {i}: {e:?}"); }
            }
        }
        Err(e) => println!("err {e:?}"),
    }
}
