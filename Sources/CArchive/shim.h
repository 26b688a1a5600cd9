#ifndef PIPELINE_CARCHIVE_SHIM_H
#define PIPELINE_CARCHIVE_SHIM_H
/* Declarations only: libarchive writes and reads the archives of /file/compress and
   /file/decompress (Engine/Archives). Entries are read into files the engine names itself;
   archive_read_extract, which would follow the archive's paths, is never used. */
#include <archive.h>
#include <archive_entry.h>
#endif
