import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * RFC 3161 trusted timestamps, parsed and verified with PKI.js —
 * no hand-made ASN.1 or CMS. Runs in Node and in the browser (WebCrypto).
 *
 * What is time-stamped is the JWS signature of a bundle or checkpoint: the
 * message imprint is SHA-256 of the signature's base64url text (ASCII). The
 * token then proves that this exact signature — and so the signed record —
 * existed at the token's genTime, by the clock of the plant's authority.
 */

export interface TimestampInfo {
  /** ISO time the authority stamped */
  genTime: string;
  /** the authority's certificate subject */
  tsa: string;
  /** SHA-256 (hex) of the authority's certificate (DER): what an auditor compares with the plant's TSA certificate */
  certificateSha256: string;
  serialNumber: string;
}

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const TST_INFO_OID = '1.2.840.113549.1.9.16.1.4';

let engineSet = false;
function engine(): void {
  if (engineSet) return;
  pkijs.setEngine('wip', new pkijs.CryptoEngine({ name: 'wip', crypto: globalThis.crypto }));
  engineSet = true;
}

const hex = (bytes: ArrayBuffer | Uint8Array) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function imprintOf(signature: string): Promise<ArrayBuffer> {
  return globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(signature));
}

function subjectOf(cert: pkijs.Certificate): string {
  return cert.subject.typesAndValues
    .map(
      (tv) =>
        `${tv.type === '2.5.4.3' ? 'CN' : tv.type === '2.5.4.10' ? 'O' : tv.type === '2.5.4.6' ? 'C' : tv.type}=${String(tv.value.valueBlock.value)}`,
    )
    .join(', ');
}

/** A TimeStampReq (DER) asking for a token over `signature`, with a nonce and the authority's certificate. */
export async function timestampRequest(signature: string): Promise<{ der: Uint8Array; nonce: bigint }> {
  engine();
  const nonceBytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
  nonceBytes[0] = nonceBytes[0] & 0x7f;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
      hashedMessage: new asn1js.OctetString({ valueHex: await imprintOf(signature) }),
    }),
    nonce: new asn1js.Integer({ valueHex: nonceBytes.buffer }),
    certReq: true,
  });
  return { der: new Uint8Array(request.toSchema().toBER(false)), nonce: BigInt(`0x${hex(nonceBytes)}`) };
}

/**
 * Reads an authority's TimeStampResp: granted, with a token that verifies for
 * `signature` and echoes `nonce`. Returns the token (base64 DER) to keep.
 */
export async function acceptTimestampResponse(
  der: Uint8Array,
  signature: string,
  nonce: bigint,
): Promise<{ ok: true; token: string; info: TimestampInfo } | { ok: false; problem: string }> {
  engine();
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(der.slice().buffer);
  } catch {
    return { ok: false, problem: 'the authority answered something that is not a TimeStampResp' };
  }
  const status = response.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods)
    return {
      ok: false,
      problem: `the authority refused the request (PKIStatus ${status}${response.status.statusStrings ? `: ${response.status.statusStrings.map((s) => s.valueBlock.value).join(' ')}` : ''})`,
    };
  if (!response.timeStampToken) return { ok: false, problem: 'the authority granted the request but sent no token' };
  const token = bytesToBase64(new Uint8Array(response.timeStampToken.toSchema().toBER(false)));
  const checked = await verifyTimestampToken(token, signature, { nonce });
  return checked.ok ? { ok: true, token, info: checked.info } : checked;
}

/**
 * Verifies a stored token against the signature it stamps: a CMS SignedData of
 * TSTInfo, SHA-256 imprint equal to SHA-256 of `signature`, signed (signed
 * attributes and all) by the certificate it carries; optionally with the
 * nonce the request sent, and a pinned authority certificate.
 */
export async function verifyTimestampToken(
  tokenBase64: string,
  signature: string,
  options: { nonce?: bigint; trustedCertificateSha256?: readonly string[] } = {},
): Promise<{ ok: true; info: TimestampInfo } | { ok: false; problem: string }> {
  try {
    engine();
    let signed: pkijs.SignedData;
    let tst: pkijs.TSTInfo;
    try {
      const info = pkijs.ContentInfo.fromBER(base64ToBytes(tokenBase64).buffer);
      if (info.contentType !== pkijs.ContentInfo.SIGNED_DATA) return { ok: false, problem: 'the token is not a CMS SignedData' };
      signed = new pkijs.SignedData({ schema: info.content });
      if (signed.encapContentInfo.eContentType !== TST_INFO_OID || !signed.encapContentInfo.eContent)
        return { ok: false, problem: 'the token does not carry a TSTInfo' };
      tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
    } catch {
      return { ok: false, problem: 'the token is not a readable RFC 3161 TimeStampToken' };
    }
    if (tst.messageImprint.hashAlgorithm.algorithmId !== SHA256_OID)
      return { ok: false, problem: 'the token does not stamp a SHA-256 imprint' };
    if (hex(tst.messageImprint.hashedMessage.valueBlock.valueHexView) !== hex(await imprintOf(signature))) {
      return { ok: false, problem: 'the token stamps another signature: it does not belong to this record' };
    }
    if (options.nonce !== undefined && (!tst.nonce || BigInt(`0x${hex(tst.nonce.valueBlock.valueHexView) || '0'}`) !== options.nonce)) {
      return { ok: false, problem: "the token does not echo the request's nonce" };
    }
    const certificates = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
    if (certificates.length === 0) return { ok: false, problem: 'the token carries no certificate of its authority' };
    let verified = false;
    try {
      // the stamped data itself: PKI.js checks the TSTInfo imprint against it, then the signature over the signed attributes
      const data = new TextEncoder().encode(signature);
      const result = await signed.verify({
        signer: 0,
        checkChain: false,
        extendedMode: true,
        data: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
      });
      verified = result.signatureVerified === true;
    } catch {
      verified = false;
    }
    if (!verified) return { ok: false, problem: "the token's signature does not verify: it was forged or altered" };
    const signerCert = await signerCertificate(signed, certificates);
    const certificateSha256 = hex(await globalThis.crypto.subtle.digest('SHA-256', signerCert.toSchema().toBER(false)));
    if (
      options.trustedCertificateSha256 &&
      options.trustedCertificateSha256.length > 0 &&
      !options.trustedCertificateSha256.includes(certificateSha256)
    ) {
      return {
        ok: false,
        problem: `the token was signed by ${subjectOf(signerCert)} (certificate SHA-256 ${certificateSha256}), not by a trusted time-stamping authority`,
      };
    }
    return {
      ok: true,
      info: {
        genTime: tst.genTime.toISOString(),
        tsa: subjectOf(signerCert),
        certificateSha256,
        serialNumber: hex(tst.serialNumber.valueBlock.valueHexView),
      },
    };
  } catch (error) {
    return { ok: false, problem: `the token could not be checked (${(error as Error)?.message ?? String(error)})` };
  }
}

/** The certificate of the token's (first) signer: matched by issuer and serial number, else the only one. */
async function signerCertificate(signed: pkijs.SignedData, certificates: pkijs.Certificate[]): Promise<pkijs.Certificate> {
  const sid: unknown = signed.signerInfos[0]?.sid;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const match = certificates.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber));
    if (match) return match;
  }
  return certificates[0];
}
