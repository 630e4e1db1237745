// Command tracegen writes zz_trace.go for the package in the current
// directory: the text form of its trace events, generated from their struct
// tags (see package internal/tracegen for the grammar). go generate runs it
// through the //go:generate line of each trace event package.
package main

import (
	"fmt"
	"os"

	"github.com/kubesim/kubesim/internal/tracegen"
)

func main() {
	src, err := tracegen.Generate(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(tracegen.FileName, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
}
