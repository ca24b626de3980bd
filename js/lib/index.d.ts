// SPDX-License-Identifier: MIT
// The types of onyx-runtime: onnxruntime-common's own (its InferenceSession,
// Tensor, env and the rest, re-exported as they are), with what onyx adds.
import type { InferenceSession, Tensor } from 'onnxruntime-common';

export * from 'onnxruntime-common';

/**
 * An error from onyx, or from onyx-runtime's checks of what it was given:
 * the message names the input, node, dimension, type or option; status is
 * the status name of onyx's docs/errors.md, for example 'ONYX_INPUT_SHAPE'.
 */
export declare class OnyxError extends Error {
  constructor(message: string, status: string);
  readonly status: string;
}

/** The name onyx's backend is registered under ('onyx'), for executionProviders. */
export declare const BACKEND_NAME: 'onyx';

/**
 * Decodes a serialized ONNX TensorProto (a .pb file of ONNX test data).
 * type is the ONNX element type's name: 'bfloat16' where tensor is the
 * 'uint16' tensor of its bit patterns. Not part of onnxruntime.
 */
export declare function decodeTensor(bytes: Uint8Array): Promise<{
  name: string | null;
  tensor: Tensor;
  type: string;
}>;

/** onyx's version and the instruction set its kernels use ('wasm-simd128'). */
export declare function info(): Promise<{ version: string; isa: string }>;

declare module 'onnxruntime-common' {
  namespace InferenceSession {
    /** Options of the 'onyx' execution provider. */
    interface OnyxExecutionProviderOption extends ExecutionProviderOption {
      readonly name: 'onyx';
      /** Caps the kernels' instruction set: 'scalar', or 'wasm-simd128' (the default). */
      isa?: 'scalar' | 'wasm-simd128';
    }
    interface ExecutionProviderOptionMap {
      onyx: OnyxExecutionProviderOption;
    }
  }
  interface InferenceSessionFactory {
    /** A model at a URL: fetched in browsers; in Node.js a file: URL is read from its path. */
    create(url: URL, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  }
}
