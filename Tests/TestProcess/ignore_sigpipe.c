// The test process ignores SIGPIPE from its first instruction, as the tool's main does: code
// under test that writes to a pipe or socket whose reader has gone must see EPIPE, and a test
// that races a reader (a FIFO's, a child's, a peer's) must not end the whole suite.
#include <signal.h>

__attribute__((constructor)) static void pipeline_tests_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}
