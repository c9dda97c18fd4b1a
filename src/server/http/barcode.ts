// bwip-js is large (2 MB) and drawn rarely: loaded at the first barcode, not at every start.
/**
 * A Code 128 barcode as a PNG data URI. bwip-js draws no quiet zone and a transparent background
 * by default, which scanners and decoders fail on: both are set here.
 */
export async function barcodeDataUri(text: string): Promise<string> {
  const { toBuffer } = await import('bwip-js/node');
  const png = await toBuffer({
    bcid: 'code128',
    text,
    scale: 3,
    height: 12,
    includetext: true,
    textxalign: 'center',
    paddingwidth: 10,
    paddingheight: 6,
    backgroundcolor: 'FFFFFF',
  });
  return `data:image/png;base64,${png.toString('base64')}`;
}
