/* Prints the size and every field offset of 2.23.1's blosc2_schunk, from its headers, in the
   form of src/ffi/abi/layout.rs's abi2 check; run.sh compares the two, so the compile-time
   layout check of the 2.x face is tied to the real headers. */
#include <stddef.h>
#include <stdio.h>
#include "blosc2.h"
#define F(f) printf("%s @ %zu\n", #f, offsetof(blosc2_schunk, f))
int main(void) {
  printf("size %zu\n", sizeof(blosc2_schunk));
  F(version); F(compcode); F(compcode_meta); F(clevel); F(splitmode); F(typesize);
  F(blocksize); F(chunksize); F(filters); F(filters_meta); F(nchunks); F(current_nchunk);
  F(nbytes); F(cbytes); F(data); F(data_len); F(storage); F(frame); F(cctx); F(dctx);
  F(metalayers); F(nmetalayers); F(vlmetalayers); F(nvlmetalayers); F(tuner_params);
  F(tuner_id); F(ndim); F(blockshape); F(view);
  return 0;
}
