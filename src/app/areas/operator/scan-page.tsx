import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql } from '../../api/client';
import { useT } from '../../i18n';
import { Button, Notice, PageHeader, TextField } from '../../ui';

interface DetectedBarcode {
  rawValue: string;
}
interface BarcodeDetectorLike {
  detect(source: CanvasImageSource): Promise<DetectedBarcode[]>;
}
declare global {
  interface Window {
    BarcodeDetector?: new (options?: { formats?: string[] }) => BarcodeDetectorLike;
  }
}

interface AssetRow {
  id: string;
  name: string;
  serialNumber: string | null;
}

/**
 * What a scanned or typed code names: a job (its number, `Job:12`, or a link
 * to it) or an asset (its serial number or name). Returns the page to open.
 */
export async function resolveCode(code: string): Promise<string | undefined> {
  const text = code.trim();
  if (!text) return undefined;
  const job = /^(?:Job:|#)?(\d+)$/i.exec(text) ?? /\/app\/jobs\/(\d+)/.exec(text);
  if (job) return `/app/jobs/${job[1]}`;
  const data = await graphql<{ assets: { nodes: AssetRow[] } }>(
    'query ScanAssets { assets(last: 100) { nodes { id name serialNumber } } }',
  );
  const needle = text.toLowerCase();
  const asset =
    data.assets.nodes.find((a) => a.serialNumber?.toLowerCase() === needle) ??
    data.assets.nodes.find((a) => a.name.toLowerCase() === needle);
  if (asset) return `/app/jobs?asset=${encodeURIComponent(asset.id)}`;
  return undefined;
}

/** Find a job or an asset: the camera reads a QR or bar code where the browser can (BarcodeDetector), else a typed code. */
export default function ScanPage() {
  const t = useT();
  const { route } = useLocation();
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [scanning, setScanning] = useState(false);
  const [busy, setBusy] = useState(false);
  const video = useRef<HTMLVideoElement>(null);
  const canDetect = typeof window !== 'undefined' && typeof window.BarcodeDetector === 'function' && !!navigator.mediaDevices?.getUserMedia;

  const find = async (value: string) => {
    setBusy(true);
    setMessage(null);
    try {
      const target = await resolveCode(value);
      if (target) route(target);
      else setMessage(t('operator.scan.notFound', { code: value }));
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (!scanning || !window.BarcodeDetector) return;
    let stream: MediaStream | undefined;
    let stopped = false;
    const detector = new window.BarcodeDetector();
    void (async () => {
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } });
        if (stopped || !video.current) return;
        video.current.srcObject = stream;
        await video.current.play();
        while (!stopped) {
          const found = await detector.detect(video.current).catch(() => []);
          if (found[0]?.rawValue) {
            setScanning(false);
            setCode(found[0].rawValue);
            void find(found[0].rawValue);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      } catch {
        setMessage(t('operator.scan.cameraDenied'));
        setScanning(false);
      }
    })();
    return () => {
      stopped = true;
      stream?.getTracks().forEach((track) => track.stop());
    };
  }, [scanning]);

  return (
    <>
      <PageHeader title={t('operator.scan.title')} />
      {canDetect ? (
        <div class="scanner">
          {scanning && <video ref={video} class="scanner-video" muted playsInline aria-label={t('operator.scan.video')} />}
          <Button size="large" variant={scanning ? 'secondary' : 'primary'} onClick={() => setScanning(!scanning)}>
            {scanning ? t('operator.scan.stop') : t('operator.scan.camera')}
          </Button>
        </div>
      ) : (
        <Notice>{t('operator.scan.noCamera')}</Notice>
      )}
      <form
        class="scan-form"
        onSubmit={(event) => {
          event.preventDefault();
          void find(code);
        }}
      >
        <TextField label={t('operator.scan.code')} value={code} onValue={setCode} autocomplete="off" />
        <Button type="submit" variant="primary" size="large" busy={busy}>
          {t('operator.scan.find')}
        </Button>
      </form>
      {message && <Notice tone="warning">{message}</Notice>}
    </>
  );
}
