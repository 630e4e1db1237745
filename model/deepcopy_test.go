package model

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestDeepCopyIsIndependent(t *testing.T) {
	for _, r := range Resources() {
		t.Run(r.Kind, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				orig := genObject(t, r)
				before, err := Encode(orig)
				require.NoError(t, err)
				cp := orig.DeepCopyObject()
				require.True(t, reflect.DeepEqual(orig, cp), "a copy must equal its original")
				require.NotSame(t, orig, cp)
				mutate(reflect.ValueOf(cp).Elem())
				after, err := Encode(orig)
				require.NoError(t, err)
				require.Equal(t, string(before), string(after), "mutating the copy changed the original")
			})
		})
	}
}

func TestDeepCopyNil(t *testing.T) {
	require.Nil(t, (*Pod)(nil).DeepCopy())
	require.Nil(t, (*Node)(nil).DeepCopy())
	require.Nil(t, (*ReplicaSet)(nil).DeepCopy())
	require.Nil(t, (*Deployment)(nil).DeepCopy())
	require.Nil(t, (*Lease)(nil).DeepCopy())
	require.Nil(t, (*Service)(nil).DeepCopy())
	require.Nil(t, (*EndpointSlice)(nil).DeepCopy())
	require.Nil(t, (*LabelSelector)(nil).DeepCopy())
	require.Nil(t, ResourceList(nil).DeepCopy())
}

func TestDeepCopyInto(t *testing.T) {
	p := &Pod{ObjectMeta: ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}}
	var out Pod
	p.DeepCopyInto(&out)
	out.Labels["k"] = "changed"
	require.Equal(t, "v", p.Labels["k"])
}
