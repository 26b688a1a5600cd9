#ifndef PIPELINE_CZLIB_SHIM_H
#define PIPELINE_CZLIB_SHIM_H
/* Declarations only: zlib's CRC-32 is the fast tus chunk checksum (Crypto/StreamingDigest.swift); `pipeline init` deflates its sample images. */
#include <zlib.h>
#endif
