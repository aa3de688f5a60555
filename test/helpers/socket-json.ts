// A JSON call to the service over its real socket, with a developer's credentials: the socket
// tests of each route family make the same request and read the same answer.

/** `base` and `headers` are read at call time: tests set them in `before`. */
export function socketJson(base: () => string, headers: () => Record<string, string>) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...headers(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      json: text ? JSON.parse(text) : null,
      raw: text,
    };
  };
}
