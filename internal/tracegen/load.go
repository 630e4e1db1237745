package tracegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// source is what the generator reads of one package.
type source struct {
	pkg   string                   // package name
	fset  *token.FileSet           // positions, for errors
	named map[string]ast.Expr      // the package's type declarations, for lookup
	types []*traceType             // the marked types, in source order
	specs map[string]*ast.TypeSpec // the marked types' declarations, for lookup
}

// load parses the package in dir (without tests and the generated file) and
// reads its marked types.
func load(dir string) (*source, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	s := &source{fset: token.NewFileSet(), named: map[string]ast.Expr{}, specs: map[string]*ast.TypeSpec{}}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == FileName {
			continue
		}
		f, err := parser.ParseFile(s.fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		s.pkg = f.Name.Name
		if err := s.readTypes(f); err != nil {
			return nil, err
		}
	}
	if s.pkg == "" {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	for _, t := range s.types {
		if err := s.readFields(t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readTypes records the type declarations of f and the marked ones.
func (s *source) readTypes(f *ast.File) error {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			s.named[ts.Name.Name] = ts.Type
			doc := ts.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			t, err := directive(doc, ts.Name.Name, s.where(ts.Pos()))
			if err != nil || t == nil {
				if err != nil {
					return err
				}
				continue
			}
			if _, ok := ts.Type.(*ast.StructType); !ok {
				return fmt.Errorf("%s: %s is marked for the trace but is not a struct", t.where, t.name)
			}
			s.types = append(s.types, t)
			s.specs[t.name] = ts
		}
	}
	return nil
}

// directive reads the //trace: line of a doc comment, if any.
func directive(doc *ast.CommentGroup, name, where string) (*traceType, error) {
	if doc == nil {
		return nil, nil
	}
	var t *traceType
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, "//trace:")
		if !ok {
			continue
		}
		if t != nil {
			return nil, fmt.Errorf("%s: %s has two //trace: directives", where, name)
		}
		w := strings.Fields(rest)
		switch {
		case len(w) == 1 && w[0] == "item":
			t = &traceType{name: name, where: where}
		case (len(w) == 3 || len(w) == 4 && w[3] == "notrim") && w[0] == "kind" && token.IsExported(w[1]) && token.IsIdentifier(w[1]):
			t = &traceType{name: name, where: where, kindConst: w[1], kind: w[2], noTrim: len(w) == 4}
		default:
			return nil, fmt.Errorf("%s: bad directive %q: want //trace:kind Const kind [notrim] or //trace:item", where, c.Text)
		}
	}
	return t, nil
}

// readFields reads the fields of t and their tags.
func (s *source) readFields(t *traceType) error {
	st := s.specs[t.name].Type.(*ast.StructType)
	kinds := map[string]valueKind{} // resolvable fields, for conditions
	for _, f := range st.Fields.List {
		if len(f.Names) != 1 {
			return fmt.Errorf("%s: %s: declare one named field per line", s.where(f.Pos()), t.name)
		}
		fd := field{goName: f.Names[0].Name, where: s.where(f.Pos())}
		if fd.kind, fd.conv, fd.typeErr = s.resolve(f.Type); fd.typeErr == nil {
			kinds[fd.goName] = fd.kind
		}
		t.fields = append(t.fields, fd)
	}
	for i, f := range st.Fields.List {
		fd := &t.fields[i]
		tag, ok := "", false
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag, ok = reflect.StructTag(raw).Lookup("trace")
		}
		if !ok {
			return fmt.Errorf("%s: %s.%s has no trace tag (`trace:\"-\"` leaves it out)", fd.where, t.name, fd.goName)
		}
		if err := parseTag(fd, tag, kinds); err != nil {
			return fmt.Errorf("%s: %s.%s: %v", fd.where, t.name, fd.goName, err)
		}
		if fd.skip {
			continue
		}
		if err := fd.typeErr; err != nil {
			return fmt.Errorf("%s: %s.%s: %v", fd.where, t.name, fd.goName, err)
		}
		if err := check(fd, t.kindConst == ""); err != nil {
			return fmt.Errorf("%s: %s.%s: %v", fd.where, t.name, fd.goName, err)
		}
	}
	return nil
}

// resolve says how a field of type x prints, and the conversion its helper
// needs.
func (s *source) resolve(x ast.Expr) (valueKind, string, error) {
	switch x := x.(type) {
	case *ast.Ident:
		if k, conv, ok := basic(x.Name); ok {
			return k, conv, nil
		}
		if u, ok := s.named[x.Name].(*ast.Ident); ok {
			if k, conv, ok := basic(u.Name); ok {
				if conv == "" {
					conv = u.Name
				}
				return k, conv, nil
			}
		}
	case *ast.ArrayType:
		if e, ok := x.Elt.(*ast.Ident); ok && x.Len == nil {
			if e.Name == "string" {
				return kindStrings, "", nil
			}
			if s.isItem(e.Name) {
				return kindItems, "", nil
			}
		}
	}
	return 0, "", fmt.Errorf("cannot print type %s (a basic type, a named basic type of the package, []string or a slice of a //trace:item type)", typeString(x))
}

// isItem reports whether name is a type marked //trace:item.
func (s *source) isItem(name string) bool {
	for _, t := range s.types {
		if t.name == name {
			return t.kindConst == ""
		}
	}
	return false
}

// basic says how a predeclared type prints; conv is the type its helper
// takes when that differs.
func basic(name string) (k valueKind, conv string, ok bool) {
	switch name {
	case "string":
		return kindString, "", true
	case "bool":
		return kindBool, "", true
	case "int64":
		return kindInt, "", true
	case "int", "int8", "int16", "int32":
		return kindInt, "int64", true
	case "uint64":
		return kindUint, "", true
	case "uint", "uint8", "uint16", "uint32":
		return kindUint, "uint64", true
	}
	return 0, "", false
}

// typeString prints a type expression for an error message.
func typeString(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.ArrayType:
		return "[]" + typeString(x.Elt)
	case *ast.StarExpr:
		return "*" + typeString(x.X)
	case *ast.MapType:
		return "map[" + typeString(x.Key) + "]" + typeString(x.Value)
	}
	return fmt.Sprintf("%T", x)
}

// where is a position as file:line.
func (s *source) where(p token.Pos) string {
	pos := s.fset.Position(p)
	return fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
}
