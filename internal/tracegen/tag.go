package tracegen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// parseTag reads a trace tag into f. kinds holds the fields of f's struct
// whose type can print, which conditions may name.
func parseTag(f *field, tag string, kinds map[string]valueKind) error {
	parts := strings.Split(tag, ",")
	f.name = parts[0]
	if f.name == "-" {
		if len(parts) > 1 {
			return errors.New(`a field left out ("-") takes no options`)
		}
		f.skip = true
		return nil
	}
	for _, opt := range parts[1:] {
		key, val, hasVal := strings.Cut(opt, "=")
		if hasVal != (key == "cut" || key == "if") {
			return fmt.Errorf("bad option %q", opt)
		}
		switch key {
		case "omitempty":
			f.omitEmpty = true
		case "hex":
			f.hex = true
		case "flag":
			f.flag = true
		case "quote":
			f.quote = true
		case "cut":
			if !constant(val) {
				return fmt.Errorf("cut=%s: want a constant name or a number", val)
			}
			f.cut = val
		case "if":
			c, err := condition(val, kinds)
			if err != nil {
				return err
			}
			f.conds = append(f.conds, c)
		default:
			return fmt.Errorf("unknown option %q", opt)
		}
	}
	return nil
}

// condition turns COND of if=COND into Go over the receiver.
func condition(c string, kinds map[string]valueKind) (string, error) {
	if l, r, ok := strings.Cut(c, "=="); ok {
		if k, ok := kinds[l]; !ok || k == kindItems || k == kindStrings {
			return "", fmt.Errorf("if=%s: %s is not a field that compares", c, l)
		}
		if !constant(r) {
			return "", fmt.Errorf("if=%s: want a constant name or a number after ==", c)
		}
		return receiver + "." + l + " == " + r, nil
	}
	name, not := strings.CutPrefix(c, "!")
	if kinds[name] != kindBool {
		return "", fmt.Errorf("if=%s: %s is not a bool field", c, name)
	}
	if not {
		return "!" + receiver + "." + name, nil
	}
	return receiver + "." + name, nil
}

// constant reports whether s is an identifier or a number literal.
func constant(s string) bool {
	x, err := parser.ParseExpr(s)
	if err != nil {
		return false
	}
	switch x := x.(type) {
	case *ast.Ident:
		return true
	case *ast.BasicLit:
		return x.Kind == token.INT
	}
	return false
}

// check rejects options that do not fit the field's type or its type's
// form (event or item).
func check(f *field, item bool) error {
	switch {
	case f.flag && f.kind != kindBool:
		return errors.New("flag needs a bool")
	case f.flag && f.omitEmpty:
		return errors.New("flag already prints nothing when false: drop omitempty")
	case f.hex && f.kind != kindUint:
		return errors.New("hex needs an unsigned integer")
	case f.quote && (f.kind != kindString || !item):
		return errors.New("quote needs a string of an item")
	case f.cut != "" && !f.quote:
		return errors.New("cut needs quote")
	case !item && f.kind == kindStrings:
		return errors.New("an event cannot print []string")
	case !item && (f.kind == kindItems) != (f.name == ""):
		return errors.New("an event names every field but its slice of items")
	case item && f.kind == kindItems:
		return errors.New("an item cannot hold items")
	case item && f.kind == kindBool && !f.flag:
		return errors.New("an item prints a bool only as a flag")
	}
	return nil
}
