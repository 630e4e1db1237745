// Command docgen writes the reference pages of docs/ that mirror the code
// (see package internal/docgen). Run it through `go generate ./...`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/internal/docgen"
)

func main() {
	out := flag.String("out", "docs", "the directory to write the pages into")
	flag.Parse()
	for _, p := range docgen.Pages() {
		if err := os.WriteFile(filepath.Join(*out, p.Name), []byte(p.Body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
}
