package srg

import (
	"encoding"
	"fmt"
	"os"
	"path/filepath"
)

// SaveFile writes v's MarshalBinary to the file name atomically: to a new
// temporary file in the same folder, synced to disk, then renamed over
// name, and the folder synced. A crash or an error at any point leaves the
// old file whole (or none), or the new one whole once renamed, never a part
// or a mix; an error before the rename leaves the old file and no temporary
// one (a crash may leave a temporary file, which a later SaveFile ignores).
// The file is created readable and writable by its owner only.
func SaveFile(name string, v encoding.BinaryMarshaler) error {
	data, err := v.MarshalBinary()
	if err != nil {
		return err
	}
	return writeAtomic(name, data)
}

// LoadFile reads the file name into v with its UnmarshalBinary.
func LoadFile(name string, v encoding.BinaryUnmarshaler) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := v.UnmarshalBinary(data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// fileHook, if set, is called at each stage of writeAtomic ("write",
// halfway through the data, then before "sync", "close", "rename" and
// "syncdir"); an error it returns fails that stage, so that tests can fail
// (or crash at) every one.
var fileHook func(stage string) error

func hook(stage string) error {
	if fileHook == nil {
		return nil
	}
	return fileHook(stage)
}

func writeAtomic(name string, data []byte) error {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("srg: saving %s: %w", name, err)
	}
	tmp := f.Name()
	if err := writeSynced(f, data); err != nil {
		f.Close() // a second Close only reports that the first was made
		os.Remove(tmp)
		return fmt.Errorf("srg: saving %s: %w", name, err)
	}
	err = hook("rename")
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("srg: saving %s: %w", name, err)
	}
	// name holds the new contents from here on; the rename is durable once
	// the folder is synced.
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("srg: saving %s: %w", name, err)
	}
	return nil
}

// writeSynced writes data to f, syncs it to disk and closes it.
func writeSynced(f *os.File, data []byte) error {
	// In two parts, so that a test can fail or crash between them.
	half := len(data) / 2
	if _, err := f.Write(data[:half]); err != nil {
		return err
	}
	if err := hook("write"); err != nil {
		return err
	}
	if _, err := f.Write(data[half:]); err != nil {
		return err
	}
	if err := hook("sync"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := hook("close"); err != nil {
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	if err := hook("syncdir"); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
