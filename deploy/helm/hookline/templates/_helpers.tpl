{{/*
Labels of every object. The selector labels are those of deploy/k8s
(app.kubernetes.io/name and part-of), so a cluster can move from the
kustomize base to this chart without recreating Deployments.
*/}}
{{- define "hookline.selector" -}}
app.kubernetes.io/name: {{ . }}
app.kubernetes.io/part-of: hookline
{{- end }}

{{/* hookline.labels: dict "root" $ "name" "gateway" ["component" "api"] */}}
{{- define "hookline.labels" -}}
{{ include "hookline.selector" .name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{/* hookline.image: dict "root" $ "svc" .Values.clips "image" "clips" */}}
{{- define "hookline.image" -}}
{{- $repo := .svc.image.repository | default (printf "%s/%s" .root.Values.image.registry .image) -}}
{{- $tag := .svc.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{ printf "%s:%s" $repo $tag }}
{{- end }}

{{/* hookline.secretEnv: dict "root" $ "env" "HOOKLINE_X" "key" "x" ["optional" true] */}}
{{- define "hookline.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.secrets.name }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/* hookline.s3Env: the object-storage keys (assets, thumbnails, clips). */}}
{{- define "hookline.s3Env" -}}
{{ include "hookline.secretEnv" (dict "root" . "env" "HOOKLINE_S3_ACCESS_KEY" "key" "s3-access-key") }}
{{ include "hookline.secretEnv" (dict "root" . "env" "HOOKLINE_S3_SECRET_KEY" "key" "s3-secret-key") }}
{{- end }}

{{/* hookline.clipsEnv: the providers, alike in clips and clips-worker. */}}
{{- define "hookline.clipsEnv" -}}
- name: HOOKLINE_TRANSCRIBE_PROVIDER
  value: {{ .Values.clips.transcribeProvider | quote }}
{{ include "hookline.secretEnv" (dict "root" . "env" "HOOKLINE_TRANSCRIBE_API_KEY" "key" "transcribe-api-key" "optional" true) }}
- name: HOOKLINE_TEXT_PROVIDER
  value: {{ .Values.clips.textProvider | quote }}
{{ include "hookline.secretEnv" (dict "root" . "env" "HOOKLINE_TEXT_API_KEY" "key" "text-api-key" "optional" true) }}
{{- end }}

{{/* hookline.topology: spread over zones (unless hostOnly) and nodes. */}}
{{- define "hookline.topology" -}}
{{- $keys := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" -}}
{{- if .hostOnly }}{{ $keys = list "kubernetes.io/hostname" }}{{ end -}}
{{- range $keys }}
- maxSkew: 1
  topologyKey: {{ . }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "hookline.selector" $.name | nindent 6 }}
  matchLabelKeys: ["pod-template-hash"]
{{- end }}
{{- end }}

{{/*
hookline.deployment renders one service's Deployment. Arguments (dict):
  root       $
  name       Deployment and container name (gateway, clips-worker, ...)
  component  app.kubernetes.io/component, optional
  svc        the service's values (image, replicas, resources, dbMaxConns, autoscaling, extraEnv)
  image      image name under image.registry (clips-worker: clips)
  port       container port (HOOKLINE_HTTP_ADDR)
  schema     HOOKLINE_DB_SCHEMA and the prefix of its Secret keys and NATS user
  env        YAML list of the service's own variables (string), after the common ones
  worker     true for clips-worker: args [worker], no preStop, 120s grace, slower readiness
  volumes    YAML of volumes (string); each is mounted at its "mountPath" entry in mounts
  mounts     YAML of volumeMounts (string)
  ownsReplicas  false when an autoscaler owns spec.replicas
*/}}
{{- define "hookline.deployment" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  labels:
    {{- include "hookline.labels" (dict "root" $root "name" .name "component" .component) | nindent 4 }}
spec:
  {{- if .ownsReplicas }}
  replicas: {{ .svc.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "hookline.selector" .name | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "hookline.labels" (dict "root" $root "name" .name "component" .component) | nindent 8 }}
      annotations:
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ ternary 120 25 (default false .worker) }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      {{- with $v.image.pullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      topologySpreadConstraints:
        {{- include "hookline.topology" (dict "name" .name "hostOnly" .worker) | trim | nindent 8 }}
      containers:
        - name: {{ .name }}
          image: {{ include "hookline.image" (dict "root" $root "svc" .svc "image" .image) }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          {{- if .worker }}
          args: ["worker"]
          {{- end }}
          ports:
            - name: http
              containerPort: {{ .port }}
              protocol: TCP
            {{- if $v.metrics.enabled }}
            - name: metrics
              containerPort: {{ $v.metrics.port }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: hookline-config
          env:
            - name: HOOKLINE_HTTP_ADDR
              value: {{ printf ":%v" .port | quote }}
            - name: HOOKLINE_DB_SCHEMA
              value: {{ .schema | quote }}
            - name: HOOKLINE_DB_MAX_CONNS
              value: {{ .svc.dbMaxConns | quote }}
            {{- include "hookline.secretEnv" (dict "root" $root "env" "HOOKLINE_DATABASE_URL" "key" (printf "%s-database-url" .schema)) | nindent 12 }}
            {{- include "hookline.secretEnv" (dict "root" $root "env" "HOOKLINE_NATS_URL" "key" "nats-url") | nindent 12 }}
            - name: HOOKLINE_NATS_USER
              value: {{ .schema | quote }}
            {{- include "hookline.secretEnv" (dict "root" $root "env" "HOOKLINE_NATS_PASSWORD" "key" (printf "%s-nats-password" .schema)) | nindent 12 }}
            {{- include "hookline.secretEnv" (dict "root" $root "env" "HOOKLINE_PRINCIPAL_SECRET" "key" "principal-secret") | nindent 12 }}
            {{- with .env }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- if $v.metrics.enabled }}
            # pprof and /metrics; only metrics.scrapeFrom may connect (NetworkPolicy).
            - name: HOOKLINE_DEBUG_ADDR
              value: {{ printf ":%v" $v.metrics.port | quote }}
            {{- end }}
            {{- with .svc.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            - name: HOOKLINE_MEMORY_LIMIT
              valueFrom:
                resourceFieldRef:
                  resource: limits.memory
                  divisor: "1"
          resources:
            {{- toYaml .svc.resources | nindent 12 }}
          startupProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 2
            failureThreshold: 45
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: {{ ternary 10 5 (default false .worker) }}
            timeoutSeconds: 3
            failureThreshold: {{ ternary 3 2 (default false .worker) }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          {{- if not .worker }}
          lifecycle:
            preStop:
              sleep:
                seconds: 5
          {{- end }}
          securityContext:
            {{- toYaml $v.containerSecurityContext | nindent 12 }}
          {{- with .mounts }}
          volumeMounts:
            {{- . | nindent 12 }}
          {{- end }}
      {{- with .volumes }}
      volumes:
        {{- . | nindent 8 }}
      {{- end }}
{{- end }}

{{/* hookline.service: dict "root" $ "name" "gateway" "port" 8080 */}}
{{- define "hookline.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
  labels:
    {{- include "hookline.labels" (dict "root" .root "name" .name) | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "hookline.selector" .name | nindent 4 }}
  ports:
    - name: http
      port: {{ .port }}
      targetPort: http
      protocol: TCP
{{- end }}

{{/* hookline.pdb: dict "root" $ "name" "gateway" "svc" .Values.gateway */}}
{{- define "hookline.pdb" -}}
{{- if .svc.pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  labels:
    {{- include "hookline.labels" (dict "root" .root "name" .name) | nindent 4 }}
spec:
  maxUnavailable: {{ .svc.pdb.maxUnavailable }}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "hookline.selector" .name | nindent 6 }}
{{- end }}
{{- end }}

{{/* hookline.hpa: dict "root" $ "name" "gateway" "min" 2 "max" 6 "cpu" 70 "worker" false */}}
{{- define "hookline.hpa" -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .name }}
  labels:
    {{- include "hookline.labels" (dict "root" .root "name" .name) | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .name }}
  minReplicas: {{ .min }}
  maxReplicas: {{ .max }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .cpu }}
  behavior:
    {{- include "hookline.scaleDown" .worker | nindent 4 }}
{{- end }}

{{/*
hookline.scaleDown: one pod at a time; a worker slower still, since scaling
it down cancels its running job (redelivered, started over).
*/}}
{{- define "hookline.scaleDown" -}}
scaleDown:
  stabilizationWindowSeconds: {{ ternary 600 300 (default false .) }}
  policies:
    - type: Pods
      value: 1
      periodSeconds: {{ ternary 120 60 (default false .) }}
{{- end }}

{{/*
hookline.clipsWorkerJobs: the jobs one clips-worker pod runs at once, which
KEDA's target per pod matches: clipsWorker.jobsPerPod when set, else what
the worker derives from its CPU quota (HOOKLINE_CLIPS_WORKERS=0: one job
per whole CPU of resources.limits.cpu, "2" or "1500m", at least one).
*/}}
{{- define "hookline.clipsWorkerJobs" -}}
{{- $w := .Values.clipsWorker -}}
{{- if gt (int $w.jobsPerPod) 0 -}}
{{- $w.jobsPerPod -}}
{{- else -}}
{{- $cpu := toString $w.resources.limits.cpu -}}
{{- if hasSuffix "m" $cpu -}}
{{- max 1 (div (trimSuffix "m" $cpu | int) 1000) -}}
{{- else -}}
{{- max 1 (floor $cpu | int) -}}
{{- end -}}
{{- end -}}
{{- end }}
