import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * A span of our own inside an activity's (Temporal's interceptor makes `RunActivity:<type>` the
 * active one), for the work worth seeing apart: a model call, a sandboxed command. Attributes are
 * counts, names and outcomes, never a prompt, a command's text or output, or a secret. With
 * tracing off the API is a no-op.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return trace.getTracer('switchboard').startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'failed' });
      const type = (error as { type?: unknown }).type;
      if (typeof type === 'string') span.setAttribute('error.type', type);
      throw error;
    } finally {
      span.end();
    }
  });
}
