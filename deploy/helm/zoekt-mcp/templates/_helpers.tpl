{{/* Names: <release>-zoekt-mcp unless the release name already says it, cut to 63 characters. */}}
{{- define "zoekt-mcp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "zoekt-mcp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The adapter's objects; the shards' StatefulSet and its headless Service. A StatefulSet's
  name is at most 52 characters: its pods carry a controller-revision-hash label of the name and
  11 more, and a label value is at most 63. */}}
{{- define "zoekt-mcp.adapter" -}}{{ include "zoekt-mcp.fullname" . | trunc 55 | trimSuffix "-" }}{{- end -}}
{{- define "zoekt-mcp.zoekt" -}}{{ printf "%s-zoekt" (include "zoekt-mcp.fullname" . | trunc 46 | trimSuffix "-") }}{{- end -}}
{{- define "zoekt-mcp.weaviate" -}}{{ printf "%s-weaviate" (include "zoekt-mcp.fullname" . | trunc 43 | trimSuffix "-") }}{{- end -}}

{{/* ZOEKT_MCP_DEFINITIONS_URL: the Weaviate server holding the definitions index, through its Service. */}}
{{- define "zoekt-mcp.definitionsUrl" -}}
{{- $w := include "zoekt-mcp.weaviate" . -}}
{{- printf "http://%s.%s.svc.%s:%d" $w .Release.Namespace .Values.clusterDomain (int .Values.weaviate.port) -}}
{{- end -}}

{{- define "zoekt-mcp.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "zoekt-mcp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: adapter or zoekt. */}}
{{- define "zoekt-mcp.selector" -}}
app.kubernetes.io/name: {{ include "zoekt-mcp.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "zoekt-mcp.secretName" -}}
{{- default (printf "%s-auth" (include "zoekt-mcp.fullname" .)) .Values.auth.existingSecret -}}
{{- end -}}

{{- define "zoekt-mcp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "zoekt-mcp.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "zoekt-mcp.mirrorsConfigMap" -}}
{{- default (printf "%s-mirrors" (include "zoekt-mcp.fullname" .)) .Values.indexer.existingConfigMap -}}
{{- end -}}

{{/* ZOEKT_URL: every shard pod by its stable name through the headless Service, in pod order. */}}
{{- define "zoekt-mcp.zoektUrl" -}}
{{- $zoekt := include "zoekt-mcp.zoekt" . -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.shards) -}}
{{- $urls = append $urls (printf "http://%s-%d.%s.%s.svc.%s:%d" $zoekt $i $zoekt $.Release.Namespace $.Values.clusterDomain (int $.Values.zoekt.port)) -}}
{{- end -}}
{{- join "," $urls -}}
{{- end -}}

{{/* The Host names the adapter answers: its Service's names, the pod's own address (Prometheus
  scrapes /metrics by it; $(POD_IP) is set by the container's environment), the Ingress' hosts,
  and those given. */}}
{{- define "zoekt-mcp.allowedHosts" -}}
{{- $svc := include "zoekt-mcp.adapter" . -}}
{{- $ns := .Release.Namespace -}}
{{- $hosts := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) "$(POD_IP)" -}}
{{- if .Values.ingress.enabled -}}
{{- $hosts = concat $hosts .Values.ingress.hosts -}}
{{- end -}}
{{- $hosts = concat $hosts .Values.adapter.allowedHosts -}}
{{- join "," (uniq $hosts) -}}
{{- end -}}

{{- define "zoekt-mcp.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/* The security settings every container of the chart runs with. */}}
{{- define "zoekt-mcp.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end -}}
