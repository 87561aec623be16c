//go:build !cgo || !linux

package sqlite

// releaseHeap does nothing where the C library is not glibc's (see
// malloc_cgo.go).
func releaseHeap() {}
