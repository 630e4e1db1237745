package leaderelected

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/simtest"
)

// TestBrokenReplicasAreCaught: replicas that work on after losing the
// lease (Config.Broken) send writes as leader after their leadership
// ended, which leader-exclusivity, given the controller's component and
// Lease, catches in some world of the first seeds. The failing world
// replays to the same trace (ExpectFailure runs it twice, and the test
// runs it again as its printed command, -broken included, would), and the
// correct replicas pass that same world.
func TestBrokenReplicasAreCaught(t *testing.T) {
	f := simtest.ExpectFailure(t, brokenSpec, simtest.Seeds(10), simtest.SkipSameSeedTwice(),
		simtest.ReplayFlags("-broken"), simtest.ArtifactDir(t.TempDir()))
	require.Equal(t, "leader-exclusivity", f.Result.Failed()[0].Name)
	require.Contains(t, f.Replay, fmt.Sprintf("-seed %d -members 3 -broken", f.Result.Seed))

	setFlag(t, "seed", fmt.Sprint(f.Result.Seed))
	again := simtest.ExpectFailure(t, brokenSpec, simtest.ArtifactDir(t.TempDir()))
	require.Equal(t, f.Result.TraceHash, again.Result.TraceHash, "the replay is the same world")

	fixed := simtest.Run(t, controllerSpec, simtest.SkipSameSeedTwice())
	require.True(t, fixed[0].OK)
}

// TestForbiddenStatusIsCaught: without the grant to update tenants/status
// every status update of the leader is refused; each refusal is a traced
// api.forbidden naming the service account and the verb, and the
// invariant, not the leader's election, fails: the Tenants' status never
// follows their spec.
func TestForbiddenStatusIsCaught(t *testing.T) {
	spec := Spec("tenant-controller-no-status-grant", false)
	top := *spec.API
	top.Policy = rbac.Default().Allow(rbac.ServiceAccount(Namespace, ServiceAccount), Namespace,
		rbac.Rule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{Tenants.Group}, Resources: []string{Tenants.Plural}},
		rbac.Rule{Verbs: []string{"get", "create", "update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}})
	spec.API = &top
	f := simtest.ExpectFailure(t, spec, simtest.Seeds(1), simtest.SkipSameSeedTwice(), simtest.ArtifactDir(t.TempDir()))
	var failed []string
	for _, c := range f.Result.Failed() {
		failed = append(failed, c.Name)
	}
	require.Equal(t, []string{StatusCheckName}, failed)

	trace, err := os.ReadFile(f.Artifacts.Trace)
	require.NoError(t, err)
	refused := 0
	for _, line := range strings.Split(string(trace), "\n") {
		if strings.Contains(line, `"type":"api.forbidden"`) &&
			strings.Contains(line, `"user":"system:serviceaccount:default:tenant-controller","verb":"update-status"`) {
			refused++
		}
	}
	require.Positive(t, refused, "the refusals are in the trace, with the identity and the verb")
}

// setFlag sets a flag of the test binary for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, "simtest defines -%s", name)
	old := f.Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}
