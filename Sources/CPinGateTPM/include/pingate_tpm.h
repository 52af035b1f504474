/* pingate_tpm.h — sealing the machine key with a TPM 2.0, for the admin CLI only.
 *
 * Why C: ESAPI's structures are unions of fixed-size arrays and its constants
 * are cast macros, which Swift imports badly or not at all. Each function here
 * is one step of the TPM conversation; the order, the errors' meaning and the
 * file format around the blob are the Swift side's (PinGateTPM). This target
 * links tpm2-tss; the setgid helper never depends on it.
 */
#ifndef PINGATE_TPM_H
#define PINGATE_TPM_H

#include <stddef.h>
#include <stdint.h>

/* The step a failure happened in: with the TSS2 response code it names the cause. */
typedef enum {
    PINGATE_TPM_STEP_CONNECT = 1, /* TCTI loader or ESAPI initialisation: no TPM reachable */
    PINGATE_TPM_STEP_PRIMARY = 2, /* CreatePrimary under the owner hierarchy */
    PINGATE_TPM_STEP_SESSION = 3, /* StartAuthSession (salted, encrypting) */
    PINGATE_TPM_STEP_POLICY = 4,  /* PolicyPCR / PolicyGetDigest */
    PINGATE_TPM_STEP_CREATE = 5,  /* Create of the sealed data object */
    PINGATE_TPM_STEP_LOAD = 6,    /* Load of the sealed object under the primary */
    PINGATE_TPM_STEP_UNSEAL = 7,  /* Unseal */
    PINGATE_TPM_STEP_FORMAT = 8,  /* marshalling or unmarshalling the blob */
} pingate_tpm_step;

typedef struct pingate_tpm pingate_tpm;

typedef struct {
    pingate_tpm_step step;
    uint32_t rc; /* TSS2_RC, 0 if none */
} pingate_tpm_failure;

/* The largest sealed blob (TPM2B_PUBLIC + TPM2B_PRIVATE, marshalled). */
#define PINGATE_TPM_BLOB_MAX 1024
/* The most bytes a sealed data object holds (TPM2_MAX_SYM_DATA). */
#define PINGATE_TPM_SECRET_MAX 128

/* Connects through the TCTI named by `tcti` ("device:/dev/tpmrm0",
 * "swtpm:host=127.0.0.1,port=2321") and creates the storage primary key. */
pingate_tpm *pingate_tpm_open(const char *tcti, pingate_tpm_failure *failure);
/* Flushes every transient object and session this handle made, then disconnects. */
void pingate_tpm_close(pingate_tpm *tpm);

/* Seals `secret` under the primary; with `pcr_count` > 0 only a policy session
 * whose PCRs (SHA-256 bank) read as they do now may unseal it. Writes the
 * marshalled public and private parts into `blob`. Returns 0 or -1. */
int pingate_tpm_seal(pingate_tpm *tpm, const uint8_t *secret, size_t secret_length,
                     const uint8_t *pcrs, size_t pcr_count,
                     uint8_t *blob, size_t blob_capacity, size_t *blob_length,
                     pingate_tpm_failure *failure);

/* Loads a blob made by pingate_tpm_seal and unseals it into `secret`
 * (PINGATE_TPM_SECRET_MAX bytes). Returns 0 or -1. */
int pingate_tpm_unseal(pingate_tpm *tpm, const uint8_t *blob, size_t blob_length,
                       const uint8_t *pcrs, size_t pcr_count,
                       uint8_t *secret, size_t *secret_length,
                       pingate_tpm_failure *failure);

/* Tss2_RC_Decode's text for a response code ("tpm:session(1):a policy check failed"). */
const char *pingate_tpm_describe(uint32_t rc);

/* Response codes a caller tells apart (format-one codes without their handle,
 * session or parameter number). */
uint32_t pingate_tpm_rc_base(uint32_t rc);
extern const uint32_t pingate_tpm_rc_policy_fail;
extern const uint32_t pingate_tpm_rc_integrity;
extern const uint32_t pingate_tpm_rc_pcr_changed;

#endif
