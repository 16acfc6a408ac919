package reweighted_test

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/segtree"
	"github.com/stretchr/testify/require"
)

// The API a user sees names no internal package: no exported declaration
// of a public package (types, fields, signatures, variables) mentions one,
// so every exported name can be written outside the module.
func TestAPINamesNoInternalPackage(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(dir string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		switch base := filepath.Base(dir); {
		case dir != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "internal" || base == "cmd"):
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			return err
		}
		for name, pkg := range pkgs {
			if name == "main" {
				continue
			}
			// The local names of the internal packages the files import.
			var internal []string
			for _, f := range pkg.Files {
				for _, im := range f.Imports {
					p, _ := strconv.Unquote(im.Path.Value)
					if strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
						local := path.Base(p)
						if im.Name != nil {
							local = im.Name.Name
						}
						internal = append(internal, regexp.QuoteMeta(local))
					}
				}
			}
			checked++
			if len(internal) == 0 {
				continue
			}
			named := regexp.MustCompile(`\b(` + strings.Join(internal, "|") + `)\.`)
			// doc.New keeps the exported declarations and drops function
			// bodies and unexported fields.
			d := doc.New(pkg, dir, 0)
			var decls []ast.Node
			for _, c := range d.Consts {
				decls = append(decls, c.Decl)
			}
			for _, v := range d.Vars {
				decls = append(decls, v.Decl)
			}
			for _, f := range d.Funcs {
				decls = append(decls, f.Decl)
			}
			for _, ty := range d.Types {
				decls = append(decls, ty.Decl)
				for _, f := range append(ty.Funcs, ty.Methods...) {
					decls = append(decls, f.Decl)
				}
				for _, c := range append(ty.Consts, ty.Vars...) {
					decls = append(decls, c.Decl)
				}
			}
			for _, decl := range decls {
				var buf bytes.Buffer
				require.NoError(t, printer.Fprint(&buf, fset, decl))
				require.False(t, named.Match(buf.Bytes()), "package %s exports a declaration that names an internal package:\n%s", dir, buf.String())
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, checked, 10, "public packages checked")
	_, err = os.Stat("driver")
	require.NoError(t, err, "the driver is a public package")
}

// Every method of every backend's Sampler that reweighted.Sampler names is
// visible in go doc: declared on the type itself, or promoted from an
// exported embedded field of a public package, whose own doc lists it —
// never only through an unexported embedded field, which go doc hides.
func TestBackendMethodsAreDocumented(t *testing.T) {
	contract := reflect.TypeFor[reweighted.Sampler]()
	for _, s := range []any{btree.New(1), ost.New(1), segtree.New(1), naive.New(1)} {
		typ := reflect.TypeOf(s).Elem()
		for m := range contract.NumMethod() {
			name := contract.Method(m).Name
			_, ok := reflect.PointerTo(typ).MethodByName(name)
			require.True(t, ok, "%s has no method %s", typ, name)
			visible, hidden := false, false
			for f := range typ.NumField() {
				field := typ.Field(f)
				if !field.Anonymous {
					continue
				}
				ft := field.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if _, ok := reflect.PointerTo(ft).MethodByName(name); !ok {
					continue
				}
				if field.IsExported() && !strings.Contains(ft.PkgPath(), "/internal") {
					visible = true
				} else {
					hidden = true
				}
			}
			require.False(t, hidden && !visible, "%s.%s is promoted only through an unexported or internal embedded field", typ, name)
		}
	}
}
