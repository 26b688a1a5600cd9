#ifndef PIPELINE_CDEFLATE_SHIM_H
#define PIPELINE_CDEFLATE_SHIM_H
/* Declarations only: libdeflate's CRC-32 (carry-less multiplication where the CPU has it,
   2-3x zlib's) is the tus chunk checksum (Crypto/StreamingDigest.swift). */
#include <libdeflate.h>
#endif
