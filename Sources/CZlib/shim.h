#ifndef PIPELINE_CZLIB_SHIM_H
#define PIPELINE_CZLIB_SHIM_H
/* Declarations only: `pipeline init` deflates its sample images (and takes their chunks' CRC-32 from zlib). */
#include <zlib.h>
#endif
