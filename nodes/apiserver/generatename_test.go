package apiserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// nextGeneratedNames replays the replica's name stream: the first n
// suffixes it will draw.
func nextGeneratedNames(seed uint64, host string, n int) []string {
	rnd := sim.NewStream(seed, host+"/apiserver/generate-name")
	var out []string
	for i := 0; i < n; i++ {
		b := make([]byte, generatedNameLength)
		for j := range b {
			b[j] = nameAlphabet[rnd.IntN(len(nameAlphabet))]
		}
		out = append(out, string(b))
	}
	return out
}

func TestGenerateName(t *testing.T) {
	cases := []struct {
		name      string
		taken     int // how many of the first generated names already exist
		wantCode  int
		wantIndex int // which generated suffix the object gets
	}{
		{name: "first draw", taken: 0, wantCode: 200, wantIndex: 0},
		{name: "retry after a collision", taken: 2, wantCode: 200, wantIndex: 2},
		{name: "gives up after 8 attempts", taken: maxNameGenerationAttempts, wantCode: 409},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const seed = 7
			suffixes := nextGeneratedNames(seed, "apiserver-1", maxNameGenerationAttempts+1)
			tw := newWorld(t, seed, 1, nil)
			for i := 0; i < tc.taken; i++ {
				tw.must(0, create(newPod("web-"+suffixes[i])))
			}
			p := newPod("")
			p.GenerateName = "web-"
			resp := tw.do(0, create(p))
			require.Equal(t, tc.wantCode, resp.Status.Code, resp.Status.Message)
			if tc.wantCode != 200 {
				require.Equal(t, apiwire.ReasonAlreadyExists, resp.Status.Reason)
				require.Contains(t, resp.Status.Message, "not able to generate a unique name")
				return
			}
			got := resp.Object.(*model.Pod)
			require.Equal(t, "web-"+suffixes[tc.wantIndex], got.Name)
			require.Equal(t, "web-", got.GenerateName, "generateName is stored")
			stored := tw.must(0, getPod(got.Name)).Object.(*model.Pod)
			require.Equal(t, got.UID, stored.UID)
		})
	}
}

func TestGenerateNameValidation(t *testing.T) {
	cases := []struct {
		name, generateName, podName string
		wantCode                    int
		wantPrefix                  string
		wantMsg                     string
	}{
		{name: "prefix cut to 58", generateName: strings.Repeat("a", 70) + "-", wantCode: 200, wantPrefix: strings.Repeat("a", 58)},
		{name: "a given name wins", generateName: "web-", podName: "fixed", wantCode: 200, wantPrefix: "fixed"},
		{name: "invalid prefix", generateName: "Web_", wantCode: 422, wantMsg: "metadata.generateName: Invalid value"},
		{name: "neither name nor generateName", wantCode: 422, wantMsg: "name or generateName is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tw := newWorld(t, 3, 1, nil)
			p := newPod(tc.podName)
			p.GenerateName = tc.generateName
			resp := tw.do(0, create(p))
			require.Equal(t, tc.wantCode, resp.Status.Code, resp.Status.Message)
			if tc.wantCode != 200 {
				require.Contains(t, resp.Status.Message, tc.wantMsg)
				return
			}
			name := resp.Object.GetObjectMeta().Name
			require.True(t, strings.HasPrefix(name, tc.wantPrefix), name)
			if tc.podName != "" {
				require.Equal(t, tc.podName, name)
			} else {
				require.Len(t, name, len(tc.wantPrefix)+generatedNameLength)
			}
		})
	}
}
