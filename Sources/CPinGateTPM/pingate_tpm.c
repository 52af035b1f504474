/* pingate_tpm.c — one function per TPM step; see include/pingate_tpm.h. */
#include "pingate_tpm.h"

#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

struct pingate_tpm {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
    ESYS_TR primary;
};

const uint32_t pingate_tpm_rc_policy_fail = TPM2_RC_POLICY_FAIL;
const uint32_t pingate_tpm_rc_integrity = TPM2_RC_INTEGRITY;
const uint32_t pingate_tpm_rc_pcr_changed = TPM2_RC_PCR_CHANGED;

static int fail(pingate_tpm_failure *failure, pingate_tpm_step step, TSS2_RC rc)
{
    failure->step = step;
    failure->rc = rc;
    return -1;
}

/* Without a resource manager (swtpm, a TPM opened at /dev/tpm0) a transient
 * object left behind takes one of a handful of slots until the next reset:
 * everything this process makes is flushed before it lets go. */
static void flush(ESYS_CONTEXT *esys, ESYS_TR *handle)
{
    if (*handle != ESYS_TR_NONE) {
        Esys_FlushContext(esys, *handle);
        *handle = ESYS_TR_NONE;
    }
}

/* The TCG's storage root key template (EK Credential Profile / Provisioning
 * Guidance, ECC NIST P-256, AES-128-CFB), with an empty unique field: the
 * owner seed derives the same key every time, so nothing is stored in the
 * TPM's NV memory, and the key is the one tpm2-tools and systemd make too. */
static TPM2B_PUBLIC storage_primary_template(void)
{
    TPM2B_PUBLIC template = {
        .publicArea = {
            .type = TPM2_ALG_ECC,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
                                TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
            .parameters.eccDetail = {
                .symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
                .scheme = { .scheme = TPM2_ALG_NULL },
                .curveID = TPM2_ECC_NIST_P256,
                .kdf = { .scheme = TPM2_ALG_NULL },
            },
        },
    };
    return template;
}

pingate_tpm *pingate_tpm_open(const char *tcti_conf, pingate_tpm_failure *failure)
{
    pingate_tpm *tpm = calloc(1, sizeof *tpm);
    if (tpm == NULL) {
        fail(failure, PINGATE_TPM_STEP_CONNECT, TSS2_BASE_RC_MEMORY);
        return NULL;
    }
    tpm->primary = ESYS_TR_NONE;
    /* tpm2-tss logs every failed step to stderr; the caller says what failed
     * and what to do in one line instead. An admin's own TSS2_LOG (e.g.
     * all+debug) is kept. */
    setenv("TSS2_LOG", "all+NONE", 0);
    TSS2_RC rc = Tss2_TctiLdr_Initialize(tcti_conf, &tpm->tcti);
    if (rc == TSS2_RC_SUCCESS) rc = Esys_Initialize(&tpm->esys, tpm->tcti, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_CONNECT, rc);
        pingate_tpm_close(tpm);
        return NULL;
    }
    TPM2B_SENSITIVE_CREATE sensitive = { 0 };
    TPM2B_PUBLIC template = storage_primary_template();
    TPM2B_DATA outside = { 0 };
    TPML_PCR_SELECTION creation_pcrs = { 0 };
    rc = Esys_CreatePrimary(tpm->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                            &sensitive, &template, &outside, &creation_pcrs, &tpm->primary,
                            NULL, NULL, NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_PRIMARY, rc);
        pingate_tpm_close(tpm);
        return NULL;
    }
    return tpm;
}

void pingate_tpm_close(pingate_tpm *tpm)
{
    if (tpm == NULL) return;
    if (tpm->esys != NULL) {
        flush(tpm->esys, &tpm->primary);
        Esys_Finalize(&tpm->esys);
    }
    if (tpm->tcti != NULL) Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
}

static TPML_PCR_SELECTION pcr_selection(const uint8_t *pcrs, size_t count)
{
    TPML_PCR_SELECTION selection = { 0 };
    if (count == 0) return selection;
    selection.count = 1;
    selection.pcrSelections[0].hash = TPM2_ALG_SHA256;
    selection.pcrSelections[0].sizeofSelect = 3;
    for (size_t i = 0; i < count; i++) {
        if (pcrs[i] < 24) selection.pcrSelections[0].pcrSelect[pcrs[i] / 8] |= (uint8_t)(1u << (pcrs[i] % 8));
    }
    return selection;
}

/* A session salted with the primary key, so that the sealed secret crosses
 * the bus encrypted (AES-128-CFB) both ways: `type` is TPM2_SE_HMAC to
 * authorise with the object's empty auth value, TPM2_SE_POLICY to satisfy
 * a PCR policy, TPM2_SE_TRIAL to compute one. */
static TSS2_RC start_session(pingate_tpm *tpm, TPM2_SE type, ESYS_TR *session)
{
    TPMT_SYM_DEF symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB };
    TSS2_RC rc = Esys_StartAuthSession(tpm->esys, tpm->primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                       ESYS_TR_NONE, NULL, type, &symmetric, TPM2_ALG_SHA256, session);
    if (rc != TSS2_RC_SUCCESS || type == TPM2_SE_TRIAL) return rc;
    return Esys_TRSess_SetAttributes(tpm->esys, *session,
                                     TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION,
                                     0xff);
}

int pingate_tpm_seal(pingate_tpm *tpm, const uint8_t *secret, size_t secret_length,
                     const uint8_t *pcrs, size_t pcr_count,
                     uint8_t *blob, size_t blob_capacity, size_t *blob_length,
                     pingate_tpm_failure *failure)
{
    int result = -1;
    ESYS_TR session = ESYS_TR_NONE;
    TPM2B_PUBLIC *public_part = NULL;
    TPM2B_PRIVATE *private_part = NULL;
    TPM2B_DIGEST *policy = NULL;
    TSS2_RC rc;
    TPML_PCR_SELECTION selection = pcr_selection(pcrs, pcr_count);
    TPM2B_PUBLIC template = {
        .publicArea = {
            .type = TPM2_ALG_KEYEDHASH,
            .nameAlg = TPM2_ALG_SHA256,
            /* NODA: the TPM's dictionary-attack lockout must not lock the
             * machine key out because someone guessed at another object. */
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA,
            .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL,
        },
    };
    TPM2B_SENSITIVE_CREATE sensitive = { 0 };

    if (secret_length == 0 || secret_length > sizeof sensitive.sensitive.data.buffer) {
        fail(failure, PINGATE_TPM_STEP_FORMAT, TSS2_ESYS_RC_BAD_VALUE);
        goto out;
    }
    if (pcr_count > 0) {
        /* The policy digest of "these PCRs read as they do now", from a trial session. */
        TPM2B_DIGEST now = { 0 };
        rc = start_session(tpm, TPM2_SE_TRIAL, &session);
        if (rc == TSS2_RC_SUCCESS)
            rc = Esys_PolicyPCR(tpm->esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &now, &selection);
        if (rc == TSS2_RC_SUCCESS) rc = Esys_PolicyGetDigest(tpm->esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &policy);
        flush(tpm->esys, &session);
        if (rc != TSS2_RC_SUCCESS) {
            fail(failure, PINGATE_TPM_STEP_POLICY, rc);
            goto out;
        }
        template.publicArea.authPolicy = *policy;
    } else {
        /* No policy: the empty auth value (in a salted session) unseals it. */
        template.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
    }
    sensitive.sensitive.data.size = (UINT16)secret_length;
    memcpy(sensitive.sensitive.data.buffer, secret, secret_length);

    rc = start_session(tpm, TPM2_SE_HMAC, &session);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_SESSION, rc);
        goto out;
    }
    TPM2B_DATA outside = { 0 };
    TPML_PCR_SELECTION creation_pcrs = { 0 };
    rc = Esys_Create(tpm->esys, tpm->primary, session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template,
                     &outside, &creation_pcrs, &private_part, &public_part, NULL, NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_CREATE, rc);
        goto out;
    }
    size_t offset = 0;
    rc = Tss2_MU_TPM2B_PUBLIC_Marshal(public_part, blob, blob_capacity, &offset);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Marshal(private_part, blob, blob_capacity, &offset);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_FORMAT, rc);
        goto out;
    }
    *blob_length = offset;
    result = 0;
out:
    flush(tpm->esys, &session);
    explicit_bzero(&sensitive, sizeof sensitive);
    Esys_Free(public_part);
    Esys_Free(private_part);
    Esys_Free(policy);
    return result;
}

int pingate_tpm_unseal(pingate_tpm *tpm, const uint8_t *blob, size_t blob_length,
                       const uint8_t *pcrs, size_t pcr_count,
                       uint8_t *secret, size_t *secret_length,
                       pingate_tpm_failure *failure)
{
    int result = -1;
    ESYS_TR object = ESYS_TR_NONE, session = ESYS_TR_NONE;
    TPM2B_SENSITIVE_DATA *data = NULL;
    TPM2B_PUBLIC public_part = { 0 };
    TPM2B_PRIVATE private_part = { 0 };
    TSS2_RC rc;
    size_t offset = 0;

    rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, blob_length, &offset, &public_part);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, blob_length, &offset, &private_part);
    if (rc != TSS2_RC_SUCCESS || offset != blob_length) {
        fail(failure, PINGATE_TPM_STEP_FORMAT, rc);
        goto out;
    }
    rc = Esys_Load(tpm->esys, tpm->primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                   &private_part, &public_part, &object);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_LOAD, rc);
        goto out;
    }
    rc = start_session(tpm, pcr_count > 0 ? TPM2_SE_POLICY : TPM2_SE_HMAC, &session);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_SESSION, rc);
        goto out;
    }
    if (pcr_count > 0) {
        TPML_PCR_SELECTION selection = pcr_selection(pcrs, pcr_count);
        TPM2B_DIGEST now = { 0 };
        rc = Esys_PolicyPCR(tpm->esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &now, &selection);
        if (rc != TSS2_RC_SUCCESS) {
            fail(failure, PINGATE_TPM_STEP_POLICY, rc);
            goto out;
        }
    }
    rc = Esys_Unseal(tpm->esys, object, session, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    if (rc != TSS2_RC_SUCCESS) {
        fail(failure, PINGATE_TPM_STEP_UNSEAL, rc);
        goto out;
    }
    if (data->size > PINGATE_TPM_SECRET_MAX) {
        fail(failure, PINGATE_TPM_STEP_FORMAT, TSS2_ESYS_RC_BAD_VALUE);
        goto out;
    }
    memcpy(secret, data->buffer, data->size);
    *secret_length = data->size;
    result = 0;
out:
    if (data != NULL) {
        explicit_bzero(data, sizeof *data);
        Esys_Free(data);
    }
    flush(tpm->esys, &session);
    flush(tpm->esys, &object);
    return result;
}

const char *pingate_tpm_describe(uint32_t rc)
{
    return Tss2_RC_Decode(rc);
}

uint32_t pingate_tpm_rc_base(uint32_t rc)
{
    /* Only the TPM's own format-one codes carry a handle/session/parameter number. */
    if ((rc & TSS2_RC_LAYER_MASK) == TSS2_TPM_RC_LAYER && (rc & TPM2_RC_FMT1) != 0)
        return rc & (TPM2_RC_FMT1 | 0x03f);
    return rc;
}
