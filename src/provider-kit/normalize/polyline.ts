// Encoded polyline (the format map services read for `summary_polyline`), precision 1e-5.

function encodeSigned(value: number): string {
  let remaining = value < 0 ? ~(value << 1) : value << 1;
  let text = '';
  while (remaining >= 0x20) {
    text += String.fromCharCode((0x20 | (remaining & 0x1f)) + 63);
    remaining >>= 5;
  }
  return text + String.fromCharCode(remaining + 63);
}

export function encodePolyline(latitudes: ArrayLike<number>, longitudes: ArrayLike<number>): string {
  let text = '';
  let previousLat = 0;
  let previousLng = 0;
  for (let index = 0; index < latitudes.length; index++) {
    const lat = Math.round((latitudes[index] ?? 0) * 1e5);
    const lng = Math.round((longitudes[index] ?? 0) * 1e5);
    text += encodeSigned(lat - previousLat) + encodeSigned(lng - previousLng);
    previousLat = lat;
    previousLng = lng;
  }
  return text;
}
