// The system's zlib (Debian's zlib1g-dev), for gzip-compressing the dashboard's files and JSON
// answers. deflateInit2 is a macro in zlib.h, which Swift cannot call: this wraps it.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

static inline int czlib_gzip_init(z_streamp stream, int level) {
    // windowBits 15 + 16: a gzip header and trailer rather than a raw zlib stream.
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
