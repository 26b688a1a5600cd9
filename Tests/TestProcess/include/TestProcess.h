// Nothing to call: linking this target makes the test process ignore SIGPIPE (ignore_sigpipe.c).
