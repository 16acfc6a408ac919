package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// failFiles finds rapid's fail files at any depth, and nothing else: not
// another file under testdata/rapid, nor a .fail file outside it.
func TestFailFilesFindsRapidsFailFiles(t *testing.T) {
	root := t.TempDir()
	write := func(p string) {
		p = filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	write("levels/testdata/rapid/TestX/TestX-1.fail")
	write("testdata/rapid/TestY_sub/TestY-2.fail")
	write("testdata/rapid/README")
	write("other/x.fail")
	write("levels/unit.go")
	require.Empty(t, failFiles(filepath.Join(root, "levels", "testdata", "none")))
	require.ElementsMatch(t, []string{
		filepath.Join(root, "levels/testdata/rapid/TestX/TestX-1.fail"),
		filepath.Join(root, "testdata/rapid/TestY_sub/TestY-2.fail"),
	}, failFiles(root))
}
