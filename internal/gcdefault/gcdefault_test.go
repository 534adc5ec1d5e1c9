package gcdefault

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name string
		gogc string // "" leaves GOGC unset
		want int
	}{
		{"GOGC unset", "", Percent},
		{"GOGC set", "150", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := debug.SetGCPercent(150)
			t.Cleanup(func() { debug.SetGCPercent(old) })
			t.Setenv("GOGC", tc.gogc)
			if tc.gogc == "" {
				os.Unsetenv("GOGC") // t.Setenv restores it afterwards
			}
			Apply()
			assert.Equal(t, tc.want, debug.SetGCPercent(old))
		})
	}
}
