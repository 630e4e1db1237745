package simtest

import (
	"fmt"
	"net/url"
	"regexp"
	"runtime"
	"strings"

	"github.com/kubesim/kubesim/scenarios"
)

// testPackage finds the import path of the package whose test is named
// test (t.Name()), from the call stack: the frame of the test function (or
// a closure inside it, for a subtest) is named "<import path>.<TestName>",
// the last path element's dots escaped. It reports false when no frame
// says: a test of package main, whose functions are named "main.", or a
// Run called from a goroutine of the test's own.
func testPackage(test string) (string, bool) {
	top, _, _ := strings.Cut(test, "/")
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	for {
		fr, more := frames.Next()
		if pkg, fn, ok := splitFunc(fr.Function); ok && (fn == top || strings.HasPrefix(fn, top+".")) {
			return pkg, pkg != "main"
		}
		if !more {
			return "", false
		}
	}
}

// splitFunc splits a function's symbol name ("example.com/op.TestX.func1")
// into its package's import path and the rest. The linker escapes the
// dots of the last path element (gopkg.in/yaml%2ev3); an external test
// package's path ends in _test, which go test does not take.
func splitFunc(name string) (pkg, fn string, ok bool) {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return "", "", false
	}
	pkg, fn = name[:slash+1+dot], name[slash+1+dot+1:]
	if p, err := url.PathUnescape(pkg); err == nil {
		pkg = p
	}
	return strings.TrimSuffix(pkg, "_test"), fn, true
}

// runPattern is the -run (or -bench) pattern that selects exactly the test
// named test, subtests included: each level anchored and quoted.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// replayCommand is the go test command that replays the world of r in the
// test named test of package pkg ("" when unknown: then "." and a note to
// run it in the package's directory). extraAblate are the ablations the
// -ablate flag added (those the test's options set, it sets again); extra
// are the test's own flags (ReplayFlags), printed last.
func replayCommand(pkg, test string, r scenarios.Result, extraAblate, extra []string) string {
	target, note := pkg, ""
	if pkg == "" {
		target, note = ".", "   # in the test's package directory"
	}
	sel := "-run " + scenarios.ShellQuote(runPattern(test))
	if strings.HasPrefix(test, "Benchmark") {
		sel = "-run '^$' -bench " + scenarios.ShellQuote(runPattern(test))
	}
	cmd := fmt.Sprintf("go test %s %s -seed %d -members %d", target, sel, r.Seed, r.Members)
	for _, a := range extraAblate {
		cmd += " -ablate " + scenarios.ShellQuote(a)
	}
	for _, f := range extra {
		cmd += " " + f
	}
	return cmd + note
}
