// Package buildinfo names the kubesim build a process runs, for the run keys
// of sweeps and reports (scenarios.Build): results of one build are never
// reused as results of another, since the same seed gives the same run only
// under the same build (docs/design.md, principle 1).
//
// It is not on a simulation path: the name is computed once, lazily, and
// never reaches a world.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Module is kubesim's module path.
const Module = "github.com/kubesim/kubesim"

// String returns the build's name, computed on first use:
//
//   - a kubesim that Go stamped with a module version (a release installed
//     with `go install github.com/kubesim/kubesim/cmd/kubesim@v0.4.0`, a
//     pseudo-version for a commit, or a binary of the user's own that
//     requires kubesim at some version): that version, e.g. "v0.4.0";
//   - a development build (version "(devel)", as `go build` in a checkout
//     and every test binary give, or a version marked "+dirty"): "devel-"
//     and the first 12 hex digits of the SHA-256 of the executable, so that
//     two development builds that differ in any way never share a name;
//   - "devel" when not even the executable can be read.
var String = sync.OnceValue(func() string {
	return name(readVersion(), hashExecutable)
})

// readVersion returns kubesim's module version in this binary: the main
// module's when kubesim is the main module, else the dependency's
// (following a replace directive).
func readVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if bi.Main.Path == Module {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == Module {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// name builds the name from a module version and, for a development build,
// the hash of the executable.
func name(version string, hash func() (string, error)) string {
	if Released(version) {
		return version
	}
	h, err := hash()
	if err != nil {
		return "devel"
	}
	return "devel-" + h
}

// Released reports whether a module version names one build: a tag or a
// pseudo-version, without uncommitted changes ("+dirty") and not "(devel)".
func Released(version string) bool {
	return strings.HasPrefix(version, "v") && !strings.Contains(version, "+dirty")
}

// hashExecutable returns the first 12 hex digits of the SHA-256 of the
// running executable.
func hashExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}
