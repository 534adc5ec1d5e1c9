//go:build unix && !linux

package stdio

// growPipe: pipe buffers are Linux's to resize (F_SETPIPE_SZ); elsewhere a
// pipe keeps the size the system gives it.
func growPipe(int) {}
