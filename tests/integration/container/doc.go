// Package container checks the `baton` runtime's container image definition, runtimes/baton/Dockerfile, without a
// Docker engine (issue 4, Deliver 8): the Dockerfile is read with BuildKit's own parser and shell lexer, its
// build stage's `go build` runs here with the Dockerfile's environment and flags, the binary is proved static
// (debug/elf), and it runs as the image's non-root user (uid/gid 65532, distroless `nonroot`) against the shared
// local stack until it registers. It does not build or run an image and does not check the base images.
package container
