"""`code.execute`: model-written Python run in an isolated process; its output, never its code, is delivered.

One job per module: `limits` (rlimits), `gate` (import and attribute gate, RestrictedPython), `isolation` (which
isolation is in force, the view of the file system it gives and the command that enters it), `namespaces` (the
`unshare` isolation, entered by the launcher itself), `syscalls` (the Linux calls it needs, through ctypes),
`privileges` (no_new_privs, no capabilities, the unprivileged user), `seccomp` (no new namespace, no mount), `probe`
(the check that an isolation works and can read the interpreter), `environment` (working folder, /tmp, /dev/shm,
empty environment, collected outputs), `runner` (one sandboxed run), `child` (the launcher inside the sandbox),
`execute` (the catalog entry).

`limits`, `gate`, `namespaces`, `syscalls`, `privileges`, `seccomp` and `child` import only the standard library and
RestrictedPython: they are what the sandboxed interpreter loads. docs/sandbox.md says what each isolation promises.
"""
