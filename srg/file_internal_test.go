package srg

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// blob marshals to itself, or fails with errBlob when nil.
type blob []byte

var errBlob = errors.New("no blob")

func (b blob) MarshalBinary() ([]byte, error) {
	if b == nil {
		return nil, errBlob
	}
	return b, nil
}

func (b *blob) UnmarshalBinary(data []byte) error {
	*b = append((*b)[:0], data...)
	return nil
}

// The old and new contents of the file: of different lengths and bytes, so
// that any mix of the two, or a part of either, is neither.
var (
	oldBlob = blob(bytes.Repeat([]byte("old."), 1000))
	newBlob = blob(bytes.Repeat([]byte("NEW!"), 3000))
)

var stages = []string{"write", "sync", "close", "rename", "syncdir"}

// requireContents requires the file to hold want, readable by LoadFile, and
// the folder to hold nothing else (no temporary file left behind).
func requireContents(t *testing.T, name string, want blob, msg string) {
	t.Helper()
	var got blob
	require.NoError(t, LoadFile(name, &got), msg)
	require.True(t, bytes.Equal(want, got), "%s: the file holds %d bytes, %.8q…, want %d, %.8q…", msg, len(got), got, len(want), want)
	entries, err := os.ReadDir(filepath.Dir(name))
	require.NoError(t, err)
	require.Len(t, entries, 1, "%s: %v", msg, entries)
}

// SaveFile writes what LoadFile reads back, readable by its owner only, and
// replaces an older file whole.
func TestSaveFileRoundTrip(t *testing.T) {
	name := filepath.Join(t.TempDir(), "state")
	require.NoError(t, SaveFile(name, oldBlob))
	requireContents(t, name, oldBlob, "first save")
	info, err := os.Stat(name)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	require.NoError(t, SaveFile(name, newBlob))
	requireContents(t, name, newBlob, "second save")

	require.ErrorIs(t, SaveFile(name, blob(nil)), errBlob, "a marshaler that fails")
	requireContents(t, name, newBlob, "after a marshaler that failed")
	require.Error(t, SaveFile(filepath.Join(name, "sub"), oldBlob), "a folder that is a file")
	require.Error(t, LoadFile(filepath.Join(t.TempDir(), "none"), new(blob)), "no file")
	var st State
	err = LoadFile(name, &st)
	require.ErrorIs(t, err, ErrState, "not a state")
	require.Contains(t, err.Error(), name)
}

// A SaveFile that fails at any stage — halfway through the data, before
// the sync, the close, the rename, or the sync of the folder — returns the
// error and leaves the old file whole, and no temporary file; failing after
// the rename, it leaves the new file whole.
func TestSaveFileFailureKeepsOldFile(t *testing.T) {
	errStage := errors.New("planted failure")
	defer func() { fileHook = nil }()
	for _, stage := range stages {
		name := filepath.Join(t.TempDir(), "state")
		require.NoError(t, SaveFile(name, oldBlob))
		fileHook = func(s string) error {
			if s == stage {
				return errStage
			}
			return nil
		}
		err := SaveFile(name, newBlob)
		fileHook = nil
		require.ErrorIs(t, err, errStage, stage)
		if stage == "syncdir" {
			requireContents(t, name, newBlob, "failed at "+stage)
		} else {
			requireContents(t, name, oldBlob, "failed at "+stage)
		}
		require.NoError(t, SaveFile(name, newBlob), "a save after the failure at %s", stage)
		requireContents(t, name, newBlob, "saved after the failure at "+stage)
	}
}

// A process that dies at any stage of SaveFile — halfway through the data,
// before the sync, the close, the rename, or the sync of the folder —
// leaves the file whole: the old contents before the rename, the new after
// it, never a part or a mix; a later SaveFile succeeds. The process that
// dies is this test binary, run again as TestSaveFileCrashHelper.
func TestSaveFileCrashKeepsOldFile(t *testing.T) {
	for _, stage := range stages {
		dir := t.TempDir()
		name := filepath.Join(dir, "state")
		require.NoError(t, SaveFile(name, oldBlob))
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveFileCrashHelper$")
		cmd.Env = append(os.Environ(), "SRG_CRASH_STAGE="+stage, "SRG_CRASH_FILE="+name)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s: %s", stage, out)
		require.Equal(t, 3, exit.ExitCode(), "%s: the helper must die at the stage: %s", stage, out)
		want := oldBlob
		if stage == "syncdir" {
			want = newBlob
		}
		var got blob
		require.NoError(t, LoadFile(name, &got))
		require.True(t, bytes.Equal(want, got), "crashed at %s: the file holds %d bytes, %.8q…", stage, len(got), got)
		require.NoError(t, SaveFile(name, newBlob), "a save after the crash at %s", stage)
		require.NoError(t, LoadFile(name, &got))
		require.True(t, bytes.Equal(newBlob, got), "saved after the crash at %s", stage)
	}
}

// TestSaveFileCrashHelper is the process that TestSaveFileCrashKeepsOldFile
// kills: with SRG_CRASH_STAGE set, it saves newBlob and exits with status 3
// at that stage, leaving whatever it wrote; without, it does nothing.
func TestSaveFileCrashHelper(t *testing.T) {
	stage, name := os.Getenv("SRG_CRASH_STAGE"), os.Getenv("SRG_CRASH_FILE")
	if stage == "" {
		return
	}
	fileHook = func(s string) error {
		if s == stage {
			os.Exit(3)
		}
		return nil
	}
	_ = SaveFile(name, newBlob)
	os.Exit(4) // the stage was never reached
}
