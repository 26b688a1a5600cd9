// pipeline is built and tested on Linux only: it watches folders with inotify, reads /proc,
// and uses Glibc's stat fields and posix_fadvise. A build elsewhere stops here, not in the
// middle of a module.
#if !os(Linux)
#error("pipeline builds on Linux only (inotify, /proc, Glibc); see docs/internals.md")
#endif
