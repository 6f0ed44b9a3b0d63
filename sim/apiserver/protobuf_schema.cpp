// sim/apiserver/protobuf_schema.cpp — the messages' tables (field numbers from upstream's
// generated.proto files of k8s.io/api and k8s.io/apimachinery).
#include "sim/apiserver/protobuf_schema.hpp"

#include <map>
#include <string>

namespace hpaplus::sim::protobuf {

const message list_meta{{{1, "selfLink", kind::string},
                         {2, "resourceVersion", kind::string},
                         {3, "continue", kind::string},
                         {4, "remainingItemCount", kind::int64, nullptr, false, true}}};

namespace {

// --- schema (field numbers from generated.proto) --------------------------------------------
// A field number a message does not list is refused (415): the real server would keep it, so
// dropping it would lose what the client wrote.
extern const message object_meta, label_selector, label_selector_requirement, owner_reference,
    pod_template_spec, pod_spec, container, container_port, env_var, resource_requirements,
    deployment_spec, deployment_strategy, rolling_update, namespace_spec, key_to_path, volume,
    config_map_volume, empty_dir, toleration, probe, http_get, tcp_socket, exec_action, deployment,
    namespace_obj, config_map, service_account_obj, secret;

const message label_selector_requirement{{{1, "key", kind::string},
                                          {2, "operator", kind::string},
                                          {3, "values", kind::string, nullptr, true}}};
const message label_selector{
    {{1, "matchLabels", kind::string_map},
     {2, "matchExpressions", kind::message, &label_selector_requirement, true}}};
const message owner_reference{{{1, "kind", kind::string},
                               {3, "name", kind::string},
                               {4, "uid", kind::string},
                               {5, "apiVersion", kind::string},
                               {6, "controller", kind::boolean, nullptr, false, true},
                               {7, "blockOwnerDeletion", kind::boolean, nullptr, false, true}}};
const message fields_v1{{{1, "", kind::raw_json}}};
const message managed_fields_entry{{{1, "manager", kind::string},
                                    {2, "operation", kind::string},
                                    {3, "apiVersion", kind::string},
                                    {4, "time", kind::time},
                                    {6, "fieldsType", kind::string},
                                    {7, "fieldsV1", kind::message, &fields_v1},
                                    {8, "subresource", kind::string}}};
const message object_meta{{{1, "name", kind::string},
                           {2, "generateName", kind::string},
                           {3, "namespace", kind::string},
                           {5, "uid", kind::string},
                           {6, "resourceVersion", kind::string},
                           {7, "generation", kind::int64},
                           {8, "creationTimestamp", kind::time},
                           {11, "labels", kind::string_map},
                           {12, "annotations", kind::string_map},
                           {13, "ownerReferences", kind::message, &owner_reference, true},
                           {14, "finalizers", kind::string, nullptr, true},
                           {4, "selfLink", kind::string},
                           {9, "deletionTimestamp", kind::time},
                           {10, "deletionGracePeriodSeconds", kind::int64, nullptr, false, true},
                           {17, "managedFields", kind::ignored, &managed_fields_entry, true}}};
const message container_port{{{1, "name", kind::string},
                              {2, "hostPort", kind::int32},
                              {3, "containerPort", kind::int32},
                              {4, "protocol", kind::string},
                              {5, "hostIP", kind::string}}};
const message env_var{{{1, "name", kind::string}, {2, "value", kind::string}}};
const message volume_mount{{{1, "name", kind::string},
                            {2, "readOnly", kind::boolean},
                            {3, "mountPath", kind::string},
                            {4, "subPath", kind::string},
                            {5, "mountPropagation", kind::string, nullptr, false, true},
                            {6, "subPathExpr", kind::string},
                            {7, "recursiveReadOnly", kind::string, nullptr, false, true}}};
const message resize_policy{
    {{1, "resourceName", kind::string}, {2, "restartPolicy", kind::string}}};
const message resource_requirements{
    {{1, "limits", kind::quantity_map}, {2, "requests", kind::quantity_map}}};
const message http_header{{{1, "name", kind::string}, {2, "value", kind::string}}};
const message http_get{{{1, "path", kind::string},
                        {2, "port", kind::int_or_string},
                        {3, "host", kind::string},
                        {4, "scheme", kind::string},
                        {5, "httpHeaders", kind::message, &http_header, true}}};
const message grpc_action{
    {{1, "port", kind::int32}, {2, "service", kind::string, nullptr, false, true}}};
const message tcp_socket{{{1, "port", kind::int_or_string}, {2, "host", kind::string}}};
const message exec_action{{{1, "command", kind::string, nullptr, true}}};
const message probe_handler{{{1, "exec", kind::message, &exec_action},
                             {2, "httpGet", kind::message, &http_get},
                             {3, "tcpSocket", kind::message, &tcp_socket},
                             {4, "grpc", kind::message, &grpc_action}}};
const message probe{{{1, "", kind::inline_message, &probe_handler},
                     {2, "initialDelaySeconds", kind::int32},
                     {3, "timeoutSeconds", kind::int32},
                     {4, "periodSeconds", kind::int32},
                     {5, "successThreshold", kind::int32},
                     {6, "failureThreshold", kind::int32},
                     {7, "terminationGracePeriodSeconds", kind::int64, nullptr, false, true}}};
const message container{{{1, "name", kind::string},
                         {2, "image", kind::string},
                         {3, "command", kind::string, nullptr, true},
                         {4, "args", kind::string, nullptr, true},
                         {5, "workingDir", kind::string},
                         {6, "ports", kind::message, &container_port, true},
                         {7, "env", kind::message, &env_var, true},
                         {8, "resources", kind::message, &resource_requirements},
                         {9, "volumeMounts", kind::message, &volume_mount, true},
                         {10, "livenessProbe", kind::message, &probe},
                         {11, "readinessProbe", kind::message, &probe},
                         {13, "terminationMessagePath", kind::string},
                         {14, "imagePullPolicy", kind::string},
                         {16, "stdin", kind::boolean},
                         {17, "stdinOnce", kind::boolean},
                         {18, "tty", kind::boolean},
                         {20, "terminationMessagePolicy", kind::string},
                         {22, "startupProbe", kind::message, &probe},
                         {23, "resizePolicy", kind::message, &resize_policy, true},
                         {24, "restartPolicy", kind::string, nullptr, false, true}}};
const message key_to_path{{{1, "key", kind::string},
                           {2, "path", kind::string},
                           {3, "mode", kind::int32, nullptr, false, true}}};
const message local_object_reference{{{1, "name", kind::string}}};
const message config_map_volume{{{1, "", kind::inline_message, &local_object_reference},
                                 {2, "items", kind::message, &key_to_path, true},
                                 {3, "defaultMode", kind::int32, nullptr, false, true},
                                 {4, "optional", kind::boolean, nullptr, false, true}}};
const message secret_volume{{{1, "secretName", kind::string},
                             {2, "items", kind::message, &key_to_path, true},
                             {3, "defaultMode", kind::int32, nullptr, false, true},
                             {4, "optional", kind::boolean, nullptr, false, true}}};
const message empty_dir{{{1, "medium", kind::string}, {2, "sizeLimit", kind::quantity}}};
const message host_path{
    {{1, "path", kind::string}, {2, "type", kind::string, nullptr, false, true}}};
const message volume_source{{{1, "hostPath", kind::message, &host_path},
                             {2, "emptyDir", kind::message, &empty_dir},
                             {6, "secret", kind::message, &secret_volume},
                             {19, "configMap", kind::message, &config_map_volume}}};
const message volume{{{1, "name", kind::string}, {2, "", kind::inline_message, &volume_source}}};
const message toleration{{{1, "key", kind::string},
                          {2, "operator", kind::string},
                          {3, "value", kind::string},
                          {4, "effect", kind::string},
                          {5, "tolerationSeconds", kind::int64, nullptr, false, true}}};
const message pod_security_context{
    {{2, "runAsUser", kind::int64, nullptr, false, true},
     {3, "runAsNonRoot", kind::boolean, nullptr, false, true},
     {4, "supplementalGroups", kind::int64, nullptr, true},
     {5, "fsGroup", kind::int64, nullptr, false, true},
     {6, "runAsGroup", kind::int64, nullptr, false, true},
     {9, "fsGroupChangePolicy", kind::string, nullptr, false, true}}};
const message pod_spec{{{1, "volumes", kind::message, &volume, true},
                        {2, "containers", kind::message, &container, true},
                        {3, "restartPolicy", kind::string},
                        {4, "terminationGracePeriodSeconds", kind::int64, nullptr, false, true},
                        {5, "activeDeadlineSeconds", kind::int64, nullptr, false, true},
                        {6, "dnsPolicy", kind::string},
                        {7, "nodeSelector", kind::string_map},
                        {8, "serviceAccountName", kind::string},
                        {9, "serviceAccount", kind::string},
                        {10, "nodeName", kind::string},
                        {11, "hostNetwork", kind::boolean},
                        {12, "hostPID", kind::boolean},
                        {13, "hostIPC", kind::boolean},
                        {14, "securityContext", kind::message, &pod_security_context},
                        {15, "imagePullSecrets", kind::message, &local_object_reference, true},
                        {16, "hostname", kind::string},
                        {17, "subdomain", kind::string},
                        {19, "schedulerName", kind::string},
                        {20, "initContainers", kind::message, &container, true},
                        {21, "automountServiceAccountToken", kind::boolean, nullptr, false, true},
                        {22, "tolerations", kind::message, &toleration, true},
                        {24, "priorityClassName", kind::string},
                        {25, "priority", kind::int32, nullptr, false, true},
                        {30, "enableServiceLinks", kind::boolean, nullptr, false, true},
                        {31, "preemptionPolicy", kind::string, nullptr, false, true}}};
const message pod_template_spec{
    {{1, "metadata", kind::message, &object_meta}, {2, "spec", kind::message, &pod_spec}}};
const message rolling_update{
    {{1, "maxUnavailable", kind::int_or_string}, {2, "maxSurge", kind::int_or_string}}};
const message deployment_strategy{
    {{1, "type", kind::string}, {2, "rollingUpdate", kind::message, &rolling_update}}};
const message deployment_spec{{{1, "replicas", kind::int32, nullptr, false, true},
                               {2, "selector", kind::message, &label_selector},
                               {3, "template", kind::message, &pod_template_spec},
                               {4, "strategy", kind::message, &deployment_strategy},
                               {5, "minReadySeconds", kind::int32},
                               {6, "revisionHistoryLimit", kind::int32, nullptr, false, true},
                               {7, "paused", kind::boolean},
                               {9, "progressDeadlineSeconds", kind::int32, nullptr, false, true}}};
// A workload condition: DeploymentCondition has lastUpdateTime (6) and lastTransitionTime (7);
// ReplicaSet's, StatefulSet's and DaemonSet's have lastTransitionTime at 3.
const message deployment_condition{{{1, "type", kind::string},
                                    {2, "status", kind::string},
                                    {4, "reason", kind::string},
                                    {5, "message", kind::string},
                                    {6, "lastUpdateTime", kind::time},
                                    {7, "lastTransitionTime", kind::time}}};
const message workload_condition{{{1, "type", kind::string},
                                  {2, "status", kind::string},
                                  {3, "lastTransitionTime", kind::time},
                                  {4, "reason", kind::string},
                                  {5, "message", kind::string}}};
const message deployment_status{{{1, "observedGeneration", kind::int64},
                                 {2, "replicas", kind::int32},
                                 {3, "updatedReplicas", kind::int32},
                                 {4, "availableReplicas", kind::int32},
                                 {5, "unavailableReplicas", kind::int32},
                                 {6, "conditions", kind::message, &deployment_condition, true},
                                 {7, "readyReplicas", kind::int32},
                                 {8, "collisionCount", kind::int32, nullptr, false, true}}};
const message deployment{{{1, "metadata", kind::message, &object_meta},
                          {2, "spec", kind::message, &deployment_spec},
                          {3, "status", kind::status, &deployment_status}}};
const message replica_set_spec{{{1, "replicas", kind::int32, nullptr, false, true},
                                {2, "selector", kind::message, &label_selector},
                                {3, "template", kind::message, &pod_template_spec},
                                {4, "minReadySeconds", kind::int32}}};
const message replica_set_status{{{1, "replicas", kind::int32},
                                  {2, "fullyLabeledReplicas", kind::int32},
                                  {3, "observedGeneration", kind::int64},
                                  {4, "readyReplicas", kind::int32},
                                  {5, "availableReplicas", kind::int32},
                                  {6, "conditions", kind::message, &workload_condition, true}}};
const message replica_set{{{1, "metadata", kind::message, &object_meta},
                           {2, "spec", kind::message, &replica_set_spec},
                           {3, "status", kind::status, &replica_set_status}}};
const message stateful_set_rolling_update{{{1, "partition", kind::int32, nullptr, false, true},
                                           {2, "maxUnavailable", kind::int_or_string}}};
const message stateful_set_strategy{
    {{1, "type", kind::string}, {2, "rollingUpdate", kind::message, &stateful_set_rolling_update}}};
const message claim_retention{{{1, "whenDeleted", kind::string}, {2, "whenScaled", kind::string}}};
const message stateful_set_ordinals{{{1, "start", kind::int32}}};
const message stateful_set_spec{
    {{1, "replicas", kind::int32, nullptr, false, true},
     {2, "selector", kind::message, &label_selector},
     {3, "template", kind::message, &pod_template_spec},
     {5, "serviceName", kind::string},
     {6, "podManagementPolicy", kind::string},
     {7, "updateStrategy", kind::message, &stateful_set_strategy},
     {8, "revisionHistoryLimit", kind::int32, nullptr, false, true},
     {9, "minReadySeconds", kind::int32},
     {10, "persistentVolumeClaimRetentionPolicy", kind::message, &claim_retention},
     {11, "ordinals", kind::message, &stateful_set_ordinals}}};
const message stateful_set_status{{{1, "observedGeneration", kind::int64},
                                   {2, "replicas", kind::int32},
                                   {3, "readyReplicas", kind::int32},
                                   {4, "currentReplicas", kind::int32},
                                   {5, "updatedReplicas", kind::int32},
                                   {6, "currentRevision", kind::string},
                                   {7, "updateRevision", kind::string},
                                   {9, "collisionCount", kind::int32, nullptr, false, true},
                                   {10, "conditions", kind::message, &workload_condition, true},
                                   {11, "availableReplicas", kind::int32}}};
const message stateful_set{{{1, "metadata", kind::message, &object_meta},
                            {2, "spec", kind::message, &stateful_set_spec},
                            {3, "status", kind::status, &stateful_set_status}}};
const message daemon_set_rolling_update{
    {{1, "maxUnavailable", kind::int_or_string}, {2, "maxSurge", kind::int_or_string}}};
const message daemon_set_strategy{
    {{1, "type", kind::string}, {2, "rollingUpdate", kind::message, &daemon_set_rolling_update}}};
const message daemon_set_spec{{{1, "selector", kind::message, &label_selector},
                               {2, "template", kind::message, &pod_template_spec},
                               {3, "updateStrategy", kind::message, &daemon_set_strategy},
                               {4, "minReadySeconds", kind::int32},
                               {6, "revisionHistoryLimit", kind::int32, nullptr, false, true}}};
const message daemon_set_status{{{1, "currentNumberScheduled", kind::int32},
                                 {2, "numberMisscheduled", kind::int32},
                                 {3, "desiredNumberScheduled", kind::int32},
                                 {4, "numberReady", kind::int32},
                                 {5, "observedGeneration", kind::int64},
                                 {6, "updatedNumberScheduled", kind::int32},
                                 {7, "numberAvailable", kind::int32},
                                 {8, "numberUnavailable", kind::int32},
                                 {9, "collisionCount", kind::int32, nullptr, false, true},
                                 {10, "conditions", kind::message, &workload_condition, true}}};
const message daemon_set{{{1, "metadata", kind::message, &object_meta},
                          {2, "spec", kind::message, &daemon_set_spec},
                          {3, "status", kind::status, &daemon_set_status}}};

// batch/v1 Job (what `kubectl create job` sends).
const message job_spec{{{1, "parallelism", kind::int32, nullptr, false, true},
                        {2, "completions", kind::int32, nullptr, false, true},
                        {3, "activeDeadlineSeconds", kind::int64, nullptr, false, true},
                        {4, "selector", kind::message, &label_selector},
                        {5, "manualSelector", kind::boolean, nullptr, false, true},
                        {6, "template", kind::message, &pod_template_spec},
                        {7, "backoffLimit", kind::int32, nullptr, false, true},
                        {8, "ttlSecondsAfterFinished", kind::int32, nullptr, false, true},
                        {9, "completionMode", kind::string, nullptr, false, true},
                        {10, "suspend", kind::boolean, nullptr, false, true},
                        {12, "backoffLimitPerIndex", kind::int32, nullptr, false, true},
                        {13, "maxFailedIndexes", kind::int32, nullptr, false, true},
                        {14, "podReplacementPolicy", kind::string, nullptr, false, true}}};
const message job_condition{{{1, "type", kind::string},
                             {2, "status", kind::string},
                             {3, "lastProbeTime", kind::time},
                             {4, "lastTransitionTime", kind::time},
                             {5, "reason", kind::string},
                             {6, "message", kind::string}}};
const message job_status{{{1, "conditions", kind::message, &job_condition, true},
                          {2, "startTime", kind::time},
                          {3, "completionTime", kind::time},
                          {4, "active", kind::int32},
                          {5, "succeeded", kind::int32},
                          {6, "failed", kind::int32},
                          {7, "completedIndexes", kind::string},
                          {9, "ready", kind::int32, nullptr, false, true},
                          {10, "failedIndexes", kind::string, nullptr, false, true},
                          {11, "terminating", kind::int32, nullptr, false, true}}};
const message job{{{1, "metadata", kind::message, &object_meta},
                   {2, "spec", kind::message, &job_spec},
                   {3, "status", kind::status, &job_status}}};

// apps/v1 ControllerRevision: its data is a RawExtension, the JSON text itself.
const message raw_extension{{{1, "", kind::raw_json}}};
const message controller_revision{{{1, "metadata", kind::message, &object_meta},
                                   {2, "data", kind::message, &raw_extension},
                                   {3, "revision", kind::int64}}};

// scheduling.k8s.io/v1 PriorityClass (what `kubectl create priorityclass` sends).
const message priority_class{{{1, "metadata", kind::message, &object_meta},
                              {2, "value", kind::int32},
                              {3, "globalDefault", kind::boolean},
                              {4, "description", kind::string},
                              {5, "preemptionPolicy", kind::string, nullptr, false, true}}};
const message namespace_spec{{{1, "finalizers", kind::string, nullptr, true}}};
const message namespace_condition{{{1, "type", kind::string},
                                   {2, "status", kind::string},
                                   {4, "lastTransitionTime", kind::time},
                                   {5, "reason", kind::string},
                                   {6, "message", kind::string}}};
const message namespace_status{
    {{1, "phase", kind::string}, {2, "conditions", kind::message, &namespace_condition, true}}};
const message namespace_obj{{{1, "metadata", kind::message, &object_meta},
                             {2, "spec", kind::message, &namespace_spec},
                             {3, "status", kind::status, &namespace_status}}};
const message config_map{{{1, "metadata", kind::message, &object_meta},
                          {2, "data", kind::string_map},
                          {3, "binaryData", kind::bytes_map},
                          {4, "immutable", kind::boolean, nullptr, false, true}}};
const message service_account_obj{
    {{1, "metadata", kind::message, &object_meta},
     {3, "imagePullSecrets", kind::message, &local_object_reference, true},
     {4, "automountServiceAccountToken", kind::boolean, nullptr, false, true}}};
const message secret{{{1, "metadata", kind::message, &object_meta},
                      {2, "data", kind::bytes_map},
                      {3, "type", kind::string},
                      {4, "stringData", kind::string_map},
                      {5, "immutable", kind::boolean, nullptr, false, true}}};

// autoscaling: what `kubectl autoscale` sends (v1, and v2 from newer kubectl); metric sources
// other than Resource and ContainerResource come as JSON from every client we know.
const message cross_version_ref{
    {{1, "kind", kind::string}, {2, "name", kind::string}, {3, "apiVersion", kind::string}}};
const message hpa_v1_spec{
    {{1, "scaleTargetRef", kind::message, &cross_version_ref},
     {2, "minReplicas", kind::int32, nullptr, false, true},
     {3, "maxReplicas", kind::int32},
     {4, "targetCPUUtilizationPercentage", kind::int32, nullptr, false, true}}};
const message hpa_v1_status{
    {{1, "observedGeneration", kind::int64, nullptr, false, true},
     {2, "lastScaleTime", kind::time},
     {3, "currentReplicas", kind::int32},
     {4, "desiredReplicas", kind::int32},
     {5, "currentCPUUtilizationPercentage", kind::int32, nullptr, false, true}}};
const message hpa_v1{{{1, "metadata", kind::message, &object_meta},
                      {2, "spec", kind::message, &hpa_v1_spec},
                      {3, "status", kind::status, &hpa_v1_status}}};
const message metric_target{{{1, "type", kind::string},
                             {2, "value", kind::quantity},
                             {3, "averageValue", kind::quantity},
                             {4, "averageUtilization", kind::int32, nullptr, false, true}}};
const message resource_metric{{{1, "name", kind::string},
                               {2, "target", kind::message, &metric_target},
                               {3, "container", kind::string}}};
const message metric_spec{{{1, "type", kind::string},
                           {4, "resource", kind::message, &resource_metric},
                           {7, "containerResource", kind::message, &resource_metric}}};
const message scaling_policy{
    {{1, "type", kind::string}, {2, "value", kind::int32}, {3, "periodSeconds", kind::int32}}};
const message scaling_rules{{{1, "selectPolicy", kind::string},
                             {2, "policies", kind::message, &scaling_policy, true},
                             {3, "stabilizationWindowSeconds", kind::int32, nullptr, false, true},
                             {4, "tolerance", kind::quantity}}};
const message hpa_behavior{{{1, "scaleUp", kind::message, &scaling_rules},
                            {2, "scaleDown", kind::message, &scaling_rules}}};
const message hpa_v2_spec{{{1, "scaleTargetRef", kind::message, &cross_version_ref},
                           {2, "minReplicas", kind::int32, nullptr, false, true},
                           {3, "maxReplicas", kind::int32},
                           {4, "metrics", kind::message, &metric_spec, true},
                           {5, "behavior", kind::message, &hpa_behavior}}};
// Resource and ContainerResource metrics' status (the others: JSON, as their specs).
const message metric_value_status{{{1, "value", kind::quantity},
                                   {2, "averageValue", kind::quantity},
                                   {3, "averageUtilization", kind::int32, nullptr, false, true}}};
const message resource_metric_status{{{1, "name", kind::string},
                                      {2, "current", kind::message, &metric_value_status},
                                      {3, "container", kind::string}}};
const message metric_status{{{1, "type", kind::string},
                             {4, "resource", kind::message, &resource_metric_status},
                             {7, "containerResource", kind::message, &resource_metric_status}}};
const message hpa_condition{{{1, "type", kind::string},
                             {2, "status", kind::string},
                             {3, "lastTransitionTime", kind::time},
                             {4, "reason", kind::string},
                             {5, "message", kind::string}}};
const message hpa_v2_status{{{1, "observedGeneration", kind::int64, nullptr, false, true},
                             {2, "lastScaleTime", kind::time},
                             {3, "currentReplicas", kind::int32},
                             {4, "desiredReplicas", kind::int32},
                             {5, "currentMetrics", kind::message, &metric_status, true},
                             {6, "conditions", kind::message, &hpa_condition, true}}};
const message hpa_v2{{{1, "metadata", kind::message, &object_meta},
                      {2, "spec", kind::message, &hpa_v2_spec},
                      {3, "status", kind::status, &hpa_v2_status}}};

// authorization.k8s.io/v1 and authentication.k8s.io/v1 reviews (what `kubectl auth` sends).
const message resource_attributes{{{1, "namespace", kind::string},
                                   {2, "verb", kind::string},
                                   {3, "group", kind::string},
                                   {4, "version", kind::string},
                                   {5, "resource", kind::string},
                                   {6, "subresource", kind::string},
                                   {7, "name", kind::string}}};
const message non_resource_attributes{{{1, "path", kind::string}, {2, "verb", kind::string}}};
const message self_access_review_spec{
    {{1, "resourceAttributes", kind::message, &resource_attributes},
     {2, "nonResourceAttributes", kind::message, &non_resource_attributes}}};
const message access_review_spec{
    {{1, "resourceAttributes", kind::message, &resource_attributes},
     {2, "nonResourceAttributes", kind::message, &non_resource_attributes},
     {3, "user", kind::string},
     {4, "groups", kind::string, nullptr, true},
     {6, "uid", kind::string}}};
const message access_review_status{{{1, "allowed", kind::boolean},
                                    {2, "reason", kind::string},
                                    {3, "evaluationError", kind::string},
                                    {4, "denied", kind::boolean}}};
const message self_access_review{{{1, "metadata", kind::message, &object_meta},
                                  {2, "spec", kind::message, &self_access_review_spec},
                                  {3, "status", kind::status, &access_review_status}}};
const message access_review{{{1, "metadata", kind::message, &object_meta},
                             {2, "spec", kind::message, &access_review_spec},
                             {3, "status", kind::status, &access_review_status}}};
const message rules_review_spec{{{1, "namespace", kind::string}}};
const message rules_review{{{1, "metadata", kind::message, &object_meta},
                            {2, "spec", kind::message, &rules_review_spec},
                            {3, "status", kind::status}}};
// authentication.k8s.io/v1 UserInfo without `extra` (a map of lists the tables do not describe:
// an answer with one is JSON).
const message user_info{{{1, "username", kind::string},
                         {2, "uid", kind::string},
                         {3, "groups", kind::string, nullptr, true}}};
const message self_subject_review_status{{{1, "userInfo", kind::message, &user_info}}};
const message self_subject_review{{{1, "metadata", kind::message, &object_meta},
                                   {2, "status", kind::status, &self_subject_review_status}}};
const message token_request_spec{{{1, "audiences", kind::string, nullptr, true},
                                  {4, "expirationSeconds", kind::int64, nullptr, false, true}}};
const message token_request_status{
    {{1, "token", kind::string}, {2, "expirationTimestamp", kind::time}}};
const message token_request{{{1, "metadata", kind::message, &object_meta},
                             {2, "spec", kind::message, &token_request_spec},
                             {3, "status", kind::status, &token_request_status}}};
const message token_review_spec{
    {{1, "token", kind::string}, {2, "audiences", kind::string, nullptr, true}}};
const message token_review_status{{{1, "authenticated", kind::boolean},
                                   {2, "user", kind::message, &user_info},
                                   {3, "error", kind::string},
                                   {4, "audiences", kind::string, nullptr, true}}};
const message token_review{{{1, "metadata", kind::message, &object_meta},
                            {2, "spec", kind::message, &token_review_spec},
                            {3, "status", kind::status, &token_review_status}}};

// core/v1 Service (what `kubectl create service` sends).
const message service_port{{{1, "name", kind::string},
                            {2, "protocol", kind::string},
                            {3, "port", kind::int32},
                            {4, "targetPort", kind::int_or_string},
                            {5, "nodePort", kind::int32},
                            {6, "appProtocol", kind::string, nullptr, false, true}}};
const message service_spec{
    {{1, "ports", kind::message, &service_port, true},
     {2, "selector", kind::string_map},
     {3, "clusterIP", kind::string},
     {4, "type", kind::string},
     {5, "externalIPs", kind::string, nullptr, true},
     {7, "sessionAffinity", kind::string},
     {8, "loadBalancerIP", kind::string},
     {9, "loadBalancerSourceRanges", kind::string, nullptr, true},
     {10, "externalName", kind::string},
     {11, "externalTrafficPolicy", kind::string},
     {12, "healthCheckNodePort", kind::int32},
     {13, "publishNotReadyAddresses", kind::boolean},
     {17, "ipFamilyPolicy", kind::string, nullptr, false, true},
     {18, "clusterIPs", kind::string, nullptr, true},
     {19, "ipFamilies", kind::string, nullptr, true},
     {20, "allocateLoadBalancerNodePorts", kind::boolean, nullptr, false, true},
     {21, "loadBalancerClass", kind::string, nullptr, false, true},
     {22, "internalTrafficPolicy", kind::string, nullptr, false, true}}};
const message load_balancer_ingress{{{1, "ip", kind::string}, {2, "hostname", kind::string}}};
const message load_balancer_status{{{1, "ingress", kind::message, &load_balancer_ingress, true}}};
const message service_status{{{1, "loadBalancer", kind::message, &load_balancer_status}}};
const message service{{{1, "metadata", kind::message, &object_meta},
                       {2, "spec", kind::message, &service_spec},
                       {3, "status", kind::status, &service_status}}};

// core/v1 Pod, as typed clients create it (the spec fields above; status is the kubelet's).
const message pod_condition{{{1, "type", kind::string},
                             {2, "status", kind::string},
                             {3, "lastProbeTime", kind::time},
                             {4, "lastTransitionTime", kind::time},
                             {5, "reason", kind::string},
                             {6, "message", kind::string},
                             {7, "observedGeneration", kind::int64}}};
const message state_waiting{{{1, "reason", kind::string}, {2, "message", kind::string}}};
const message state_running{{{1, "startedAt", kind::time}}};
const message state_terminated{{{1, "exitCode", kind::int32},
                                {2, "signal", kind::int32},
                                {3, "reason", kind::string},
                                {4, "message", kind::string},
                                {5, "startedAt", kind::time},
                                {6, "finishedAt", kind::time},
                                {7, "containerID", kind::string}}};
const message container_state{{{1, "waiting", kind::message, &state_waiting},
                               {2, "running", kind::message, &state_running},
                               {3, "terminated", kind::message, &state_terminated}}};
const message container_status{{{1, "name", kind::string},
                                {2, "state", kind::message, &container_state},
                                {3, "lastState", kind::message, &container_state},
                                {4, "ready", kind::boolean},
                                {5, "restartCount", kind::int32},
                                {6, "image", kind::string},
                                {7, "imageID", kind::string},
                                {8, "containerID", kind::string},
                                {9, "started", kind::boolean, nullptr, false, true},
                                {10, "allocatedResources", kind::quantity_map},
                                {11, "resources", kind::message, &resource_requirements}}};
const message pod_ip{{{1, "ip", kind::string}}};
const message pod_status{{{1, "phase", kind::string},
                          {2, "conditions", kind::message, &pod_condition, true},
                          {3, "message", kind::string},
                          {4, "reason", kind::string},
                          {5, "hostIP", kind::string},
                          {6, "podIP", kind::string},
                          {7, "startTime", kind::time},
                          {8, "containerStatuses", kind::message, &container_status, true},
                          {9, "qosClass", kind::string},
                          {10, "initContainerStatuses", kind::message, &container_status, true},
                          {11, "nominatedNodeName", kind::string},
                          {12, "podIPs", kind::message, &pod_ip, true},
                          {14, "resize", kind::string},
                          {16, "hostIPs", kind::message, &pod_ip, true},
                          {17, "observedGeneration", kind::int64}}};
const message pod{{{1, "metadata", kind::message, &object_meta},
                   {2, "spec", kind::message, &pod_spec},
                   {3, "status", kind::status, &pod_status}}};

// core/v1 Event, what client-go's EventRecorder writes.
const message object_reference{{{1, "kind", kind::string},
                                {2, "namespace", kind::string},
                                {3, "name", kind::string},
                                {4, "uid", kind::string},
                                {5, "apiVersion", kind::string},
                                {6, "resourceVersion", kind::string},
                                {7, "fieldPath", kind::string}}};
const message event_source{{{1, "component", kind::string}, {2, "host", kind::string}}};
const message event_series{{{1, "count", kind::int32}, {2, "lastObservedTime", kind::micro_time}}};
const message event{{{1, "metadata", kind::message, &object_meta},
                     {2, "involvedObject", kind::message, &object_reference},
                     {3, "reason", kind::string},
                     {4, "message", kind::string},
                     {5, "source", kind::message, &event_source},
                     {6, "firstTimestamp", kind::time},
                     {7, "lastTimestamp", kind::time},
                     {8, "count", kind::int32},
                     {9, "type", kind::string},
                     {10, "eventTime", kind::micro_time},
                     {11, "series", kind::message, &event_series},
                     {12, "action", kind::string},
                     {13, "related", kind::message, &object_reference},
                     {14, "reportingComponent", kind::string},
                     {15, "reportingInstance", kind::string}}};

// events.k8s.io/v1 Event, what client-go's newer events library writes.
const message events_v1_source{{{1, "component", kind::string}, {2, "host", kind::string}}};
const message events_v1_event{{{1, "metadata", kind::message, &object_meta},
                               {2, "eventTime", kind::micro_time},
                               {3, "series", kind::message, &event_series},
                               {4, "reportingController", kind::string},
                               {5, "reportingInstance", kind::string},
                               {6, "action", kind::string},
                               {7, "reason", kind::string},
                               {8, "regarding", kind::message, &object_reference},
                               {9, "related", kind::message, &object_reference},
                               {10, "note", kind::string},
                               {11, "type", kind::string},
                               {12, "deprecatedSource", kind::message, &events_v1_source},
                               {13, "deprecatedFirstTimestamp", kind::time},
                               {14, "deprecatedLastTimestamp", kind::time},
                               {15, "deprecatedCount", kind::int32}}};

// coordination.k8s.io/v1 Lease, what client-go's leader election writes (every field a pointer).
const message lease_spec{{{1, "holderIdentity", kind::string, nullptr, false, true},
                          {2, "leaseDurationSeconds", kind::int32, nullptr, false, true},
                          {3, "acquireTime", kind::micro_time},
                          {4, "renewTime", kind::micro_time},
                          {5, "leaseTransitions", kind::int32, nullptr, false, true},
                          {6, "strategy", kind::string, nullptr, false, true},
                          {7, "preferredHolder", kind::string, nullptr, false, true}}};
const message lease{
    {{1, "metadata", kind::message, &object_meta}, {2, "spec", kind::message, &lease_spec}}};

// meta/v1 DeleteOptions, the body of a typed DELETE in every group version, and policy/v1
// Eviction, which carries them.
const message preconditions{{{1, "uid", kind::string, nullptr, false, true},
                             {2, "resourceVersion", kind::string, nullptr, false, true}}};
const message delete_options{{{1, "gracePeriodSeconds", kind::int64, nullptr, false, true},
                              {2, "preconditions", kind::message, &preconditions},
                              {3, "orphanDependents", kind::boolean, nullptr, false, true},
                              {4, "propagationPolicy", kind::string, nullptr, false, true},
                              {5, "dryRun", kind::string, nullptr, true}}};
const message eviction{{{1, "metadata", kind::message, &object_meta},
                        {2, "deleteOptions", kind::message, &delete_options}}};

// autoscaling/v1 Scale, what `kubectl scale` and client-go's scale client write.
const message scale_spec{{{1, "replicas", kind::int32}}};
const message scale_status{{{1, "replicas", kind::int32}, {2, "selector", kind::string}}};
const message scale{{{1, "metadata", kind::message, &object_meta},
                     {2, "spec", kind::message, &scale_spec},
                     {3, "status", kind::status, &scale_status}}};

// meta/v1 Status, every error's answer.
const message status_cause{
    {{1, "reason", kind::string}, {2, "message", kind::string}, {3, "field", kind::string}}};
const message status_details{{{1, "name", kind::string},
                              {2, "group", kind::string},
                              {3, "kind", kind::string},
                              {4, "causes", kind::message, &status_cause, true},
                              {5, "retryAfterSeconds", kind::int32},
                              {6, "uid", kind::string}}};
const message status_object{{{1, "metadata", kind::message, &list_meta},
                             {2, "status", kind::string},
                             {3, "message", kind::string},
                             {4, "reason", kind::string},
                             {5, "details", kind::message, &status_details},
                             {6, "code", kind::int32}}};

const std::map<std::string, const message*, std::less<>> kinds = {
    {"authorization.k8s.io/v1/SelfSubjectAccessReview", &self_access_review},
    {"authorization.k8s.io/v1/SubjectAccessReview", &access_review},
    {"authorization.k8s.io/v1/LocalSubjectAccessReview", &access_review},
    {"authorization.k8s.io/v1/SelfSubjectRulesReview", &rules_review},
    {"authentication.k8s.io/v1/SelfSubjectReview", &self_subject_review},
    {"authentication.k8s.io/v1/TokenRequest", &token_request},
    {"authentication.k8s.io/v1/TokenReview", &token_review},
    {"autoscaling/v1/HorizontalPodAutoscaler", &hpa_v1},
    {"autoscaling/v2/HorizontalPodAutoscaler", &hpa_v2},
    {"apps/v1/Deployment", &deployment},
    {"apps/v1/ReplicaSet", &replica_set},
    {"apps/v1/StatefulSet", &stateful_set},
    {"apps/v1/DaemonSet", &daemon_set},
    {"apps/v1/ControllerRevision", &controller_revision},
    {"batch/v1/Job", &job},
    {"scheduling.k8s.io/v1/PriorityClass", &priority_class},
    {"events.k8s.io/v1/Event", &events_v1_event},
    {"v1/Namespace", &namespace_obj},
    {"v1/ConfigMap", &config_map},
    {"v1/ServiceAccount", &service_account_obj},
    {"v1/Secret", &secret},
    {"v1/Service", &service},
    {"v1/Pod", &pod},
    {"v1/Event", &event},
    {"coordination.k8s.io/v1/Lease", &lease},
    {"policy/v1/Eviction", &eviction},
    {"autoscaling/v1/Scale", &scale},
    {"meta.k8s.io/v1/DeleteOptions", &delete_options},
    {"v1/Status", &status_object}};

} // namespace

const message* schema_of(std::string_view api_version, std::string_view kind) {
    // DeleteOptions travel under every group version (metav1.AddToGroupVersion registers them).
    if (kind == "DeleteOptions") return kinds.at("meta.k8s.io/v1/DeleteOptions");
    const auto it = kinds.find(std::string(api_version) + "/" + std::string(kind));
    return it == kinds.end() ? nullptr : it->second;
}

} // namespace hpaplus::sim::protobuf
