// zlib; deflateInit2 is a macro, so it gets an inline wrapper.
#include <zlib.h>

/// Starts a gzip stream (windowBits 15 + 16 selects the gzip wrapper).
static inline int gh_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
