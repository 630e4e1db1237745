package model

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestEncodeRoundTripEveryKind(t *testing.T) {
	for _, r := range Resources() {
		t.Run(r.Kind, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				obj := genObject(t, r)
				data, err := Encode(obj)
				require.NoError(t, err)
				back, err := Decode(data)
				require.NoError(t, err)
				require.Equal(t, obj, back)
				again, err := Encode(back)
				require.NoError(t, err)
				require.Equal(t, string(data), string(again), "re-encoding must be byte-identical")
				copied, err := Encode(obj.DeepCopyObject())
				require.NoError(t, err)
				require.Equal(t, string(data), string(copied))
			})
		})
	}
}

func TestEncodeIsCanonical(t *testing.T) {
	pod := &Pod{
		TypeMeta: TypeMeta{Kind: "Wrong", APIVersion: "v9"},
		ObjectMeta: ObjectMeta{Name: "web-1", Namespace: "default", ResourceVersion: "42",
			Labels:      map[string]string{"zeta": "1", "app": "web", "mid": "x"},
			Annotations: map[string]string{"b": "2", "a": "1"}},
		Spec: PodSpec{Containers: []Container{{Name: "app", Image: "nginx",
			Resources: ResourceRequirements{Requests: ResourceListOf("memory", "128Mi", "cpu", "500m")}}}},
	}
	data, err := Encode(pod)
	require.NoError(t, err)
	require.Equal(t, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"42",`+
		`"labels":{"app":"web","mid":"x","zeta":"1"},"annotations":{"a":"1","b":"2"}},`+
		`"spec":{"containers":[{"name":"app","image":"nginx","resources":{"requests":{"cpu":"500m","memory":"128Mi"}}}]},"status":{}}`, string(data))
	require.Equal(t, TypeMeta{Kind: "Wrong", APIVersion: "v9"}, pod.TypeMeta, "Encode must leave the object as it was")

	for i := 0; i < 20; i++ {
		again, err := Encode(pod.DeepCopy())
		require.NoError(t, err)
		require.Equal(t, data, again)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"not json", `{`, "decode: unexpected end of JSON input"},
		{"unknown kind", `{"kind":"Secret","apiVersion":"v1"}`, `decode: unknown kind "Secret"`},
		{"wrong version", `{"kind":"Deployment","apiVersion":"extensions/v1beta1"}`, `decode: kind Deployment has apiVersion "apps/v1", not "extensions/v1beta1"`},
		{"unknown field", `{"kind":"Pod","apiVersion":"v1","spec":{"hostNetwork":true}}`, `decode Pod: json: unknown field "hostNetwork"`},
		{"bad quantity", `{"kind":"Node","apiVersion":"v1","status":{"capacity":{"cpu":"lots"}}}`, `decode Node: quantities must match`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.data))
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestDecodeSetsTypeMeta(t *testing.T) {
	obj, err := Decode([]byte(`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"n1","namespace":"kube-node-lease"},"spec":{"holderIdentity":"n1","renewTime":5000000000}}`))
	require.NoError(t, err)
	l := obj.(*Lease)
	require.Equal(t, TypeMeta{Kind: KindLease, APIVersion: "coordination.k8s.io/v1"}, l.TypeMeta)
	require.Equal(t, "n1", *l.Spec.HolderIdentity)
	require.Equal(t, Time(5e9), *l.Spec.RenewTime)
}

// TestDecodeAnyKeyOrder: Decode reads the kind from Encode's head without
// parsing the document twice, and still decodes a document whose keys come
// in another order (or escaped) by parsing it in full.
func TestDecodeAnyKeyOrder(t *testing.T) {
	for _, data := range []string{
		`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"a","namespace":"default"},"spec":{}}`,
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"a","namespace":"default"},"spec":{}}`,
		`{"kind":"Le\u0061se","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"a","namespace":"default"},"spec":{}}`,
	} {
		obj, err := Decode([]byte(data))
		require.NoError(t, err, data)
		require.Equal(t, KindLease, obj.Kind())
		require.Equal(t, "a", obj.GetObjectMeta().Name)
	}
	_, err := Decode([]byte(`{"kind":"Lease","apiVersion":"v1","metadata":{}}`))
	require.ErrorContains(t, err, `kind Lease has apiVersion "coordination.k8s.io/v1", not "v1"`)
}

// TestEncodeServiceAndSlice pins the stored forms' JSON names, which are
// k8s.io/api's (core/v1 Service, discovery/v1 EndpointSlice).
func TestEncodeServiceAndSlice(t *testing.T) {
	svc := &Service{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec: ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.10",
			Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: FromString("http")}}}}
	SetDefaults(svc)
	data, err := Encode(svc)
	require.NoError(t, err)
	require.Equal(t, `{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"default"},`+
		`"spec":{"selector":{"app":"web"},"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":"http"}],"clusterIP":"10.96.0.10","type":"ClusterIP"}}`,
		string(data))

	slice := &EndpointSlice{ObjectMeta: ObjectMeta{Name: "web-x", Namespace: "default"}, AddressType: AddressTypeIPv4,
		Endpoints: []Endpoint{{Addresses: []string{"10.244.1.5"}, NodeName: "n1",
			Conditions: EndpointConditions{Ready: Ptr(false), Serving: Ptr(true), Terminating: Ptr(true)},
			TargetRef:  &ObjectReference{Kind: KindPod, Namespace: "default", Name: "web-1", UID: "u1"}}},
		Ports: []EndpointPort{{Name: Ptr(""), Protocol: Ptr(ProtocolTCP), Port: Ptr[int32](80)}}}
	data, err = Encode(slice)
	require.NoError(t, err)
	require.Equal(t, `{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"web-x","namespace":"default"},"addressType":"IPv4",`+
		`"endpoints":[{"addresses":["10.244.1.5"],"conditions":{"ready":false,"serving":true,"terminating":true},"nodeName":"n1",`+
		`"targetRef":{"kind":"Pod","namespace":"default","name":"web-1","uid":"u1"}}],"ports":[{"name":"","protocol":"TCP","port":80}]}`,
		string(data))
}
