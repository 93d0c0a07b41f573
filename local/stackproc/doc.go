// Package stackproc starts and stops `bin/baton-local` as a child process for programs that need a whole local
// stack of their own: the end-to-end tests (through tests/stack), `baton-demo` and the turn benchmark.
//
// It owns the process side only: a free-port command line, the child in its own process group, waiting for the
// state file the launcher writes when it is ready (`-state-file`, JSON of Stack), and stopping it —
// gracefully (SIGTERM to the group, which stops DynamoDB Local and the runtimes) or abruptly (SIGKILL to the
// group and to every descendant's group, as a machine crash would). It also attaches an extra API-only process
// (`baton-local -attach`) to a running stack.
//
// It does not own the stack itself (local/launcher), and it imports nothing of Baton, so a test binary that
// uses it links no server code.
package stackproc
